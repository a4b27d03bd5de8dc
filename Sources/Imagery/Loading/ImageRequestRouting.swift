/// Rewrites a request before the pipeline keys and loads it: for example through an image
/// server, so that the download is the size the app shows (`ImgproxyURLBuilder` in the
/// `ImageryImgproxy` product does that for imgproxy and `imagery-server`).
///
/// ```swift
/// struct Thumbnails: ImageRequestRouting {
///     func route(_ request: ImageRequest) -> ImageRequest {
///         guard case let .url(url, _) = request.source.kind, let resize = request.resize else { return request }
///         var routed = request
///         routed.source = .url(thumbnailURL(for: url, resize))
///         routed.resize = nil
///         return routed
///     }
/// }
/// configuration.requestRouter = Thumbnails()
/// ```
///
/// The pipeline routes each request once, when it arrives; the router must return a request
/// it would leave as it is if asked again, since keys are computed from the routed request.
public protocol ImageRequestRouting: Sendable {
    /// `request` as it should be loaded; a request the router does not handle, as it is.
    func route(_ request: ImageRequest) -> ImageRequest
}
