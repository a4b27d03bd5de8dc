extension ImageProcessors {
    /// A processor made from a synchronous closure, named by a caller-chosen `id` that goes
    /// into cache keys (so change the id when the closure's output changes).
    ///
    /// ```swift
    /// request.processors = [.custom(id: "grayscale-v1") { bitmap in grayscale(bitmap) }]
    /// ```
    ///
    /// An error the closure throws that is not an ``ImageError`` is reported as
    /// ``ImageError/processorFailed(identifier:detail:)``.
    public struct Closure: ImageProcessing {
        /// The caller's id, as given.
        public let id: String
        private let body: @Sendable (Bitmap) throws -> Bitmap

        /// A processor named `id` that runs `body`.
        public init(id: String, _ body: @escaping @Sendable (Bitmap) throws -> Bitmap) {
            self.id = id
            self.body = body
        }

        public var identifier: String { "custom(\(id))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            do {
                return try body(image.prepared)
            } catch let error as ImageError {
                throw error
            } catch {
                throw .processorFailed(identifier: identifier, detail: "\(error)")
            }
        }
    }

    /// A processor made from an async closure: an app's own photo effect, a Core Image or
    /// ML filter. The pipeline runs it in a task that it cancels when the last caller
    /// waiting for the result leaves; the closure sees `Task.isCancelled`.
    ///
    /// ```swift
    /// request.processors = [.custom(id: "portrait-v2") { bitmap in try await effects.portrait(bitmap) }]
    /// ```
    ///
    /// Its synchronous ``process(_:)`` cannot await, so it refuses: run it through
    /// ``ImagePipeline`` or ``process(_:context:)``.
    public struct AsyncClosure: ImageProcessing {
        /// The caller's id, as given.
        public let id: String
        private let body: @Sendable (Bitmap) async throws -> Bitmap

        /// A processor named `id` that awaits `body`.
        public init(id: String, _ body: @escaping @Sendable (Bitmap) async throws -> Bitmap) {
            self.id = id
            self.body = body
        }

        public var identifier: String { "custom(\(id))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            throw .processorFailed(identifier: identifier, detail: "it awaits: run it through ImagePipeline or process(_:context:)")
        }

        public func process(_ image: Bitmap, context: ImageProcessingContext) async throws(ImageError) -> Bitmap {
            do {
                return try await body(image.prepared)
            } catch let error as ImageError {
                throw error
            } catch {
                throw .processorFailed(identifier: identifier, detail: "\(error)")
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Closure {
    /// A processor named `id` that runs a synchronous closure.
    ///
    /// ```swift
    /// request.processors = [.custom(id: "invert-v1") { bitmap in invert(bitmap) }]
    /// ```
    public static func custom(id: String, _ body: @escaping @Sendable (Bitmap) throws -> Bitmap) -> Self {
        Self(id: id, body)
    }
}

extension ImageProcessing where Self == ImageProcessors.AsyncClosure {
    /// A processor named `id` that awaits a closure.
    ///
    /// ```swift
    /// request.processors = [.custom(id: "ml-upscale-v1") { bitmap in try await model.run(bitmap) }]
    /// ```
    public static func custom(id: String, _ body: @escaping @Sendable (Bitmap) async throws -> Bitmap) -> Self {
        Self(id: id, body)
    }
}
