import Dispatch

extension ImagePipeline {
    /// Loads `request` and calls `completion` exactly once, on `queue`: with the image, with the
    /// error, or with ``ImagePipelineError/cancelled`` after ``ImageTask/cancel()``. For code
    /// not yet on async/await.
    ///
    /// ```swift
    /// let task = pipeline.loadImage(with: request, queue: .main) { result in
    ///     switch result {
    ///     case .success(let response): imageView.show(response.image)
    ///     case .failure(let error): imageView.showFailure(error)
    ///     }
    /// }
    /// // in prepareForReuse():
    /// task.cancel()
    /// ```
    @discardableResult
    public func loadImage(
        with request: ImageRequest,
        queue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<ImageResponse, ImagePipelineError>) -> Void
    ) -> ImageTask {
        start(request) { task in
            task.observe(events: nil, finish: { outcome in queue.async { completion(outcome) } })
            return true
        }
    }
}
