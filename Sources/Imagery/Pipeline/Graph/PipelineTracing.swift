import Foundation
import Tracing

/// How the pipeline marks its work in the app's traces, through swift-distributed-tracing's
/// global tracer: free when none is bootstrapped (its no-op spans), and seen beside the app's
/// own spans when one is.
///
/// - Each caller's request is one span (`imagery.image`, `imagery.data`), a child of the
///   caller's current ``ServiceContext``.
/// - Each job of the coalescing graph is one span (`imagery.fetch`, `imagery.decode`,
///   `imagery.process`), a child of the span that started it. A request that joins work
///   already under way does not start it again: its span **links** to the job's instead.
/// - A span names its source's scheme and host only, never a path or query, which can carry
///   presigned credentials.
enum PipelineTracing {
    /// A span for `operation`, a child of `parent`'s.
    static func startSpan(_ operation: String, parent: any Span) -> any Span {
        InstrumentationSystem.tracer.startSpan(operation, context: parent.context)
    }

    /// A caller's span, a child of the calling task's trace.
    static func startRequestSpan(_ operation: String, source: ImageSource) -> any Span {
        let span = InstrumentationSystem.tracer.startSpan(operation, context: ServiceContext.current ?? .topLevel)
        if span.isRecording { name(source, on: span) }
        return span
    }

    /// Ends `span`, marked as failed with the failure's kind (`error.type`) when it failed; a
    /// cancellation is not a failure, and says so.
    static func end(_ span: any Span, failure: ImagePipelineError?) {
        if let failure {
            if failure == .cancelled {
                span.attributes["imagery.cancelled"] = true
            } else {
                span.attributes["error.type"] = failure.kind
                span.setStatus(SpanStatus(code: .error, message: failure.kind))
            }
        }
        span.end()
    }

    /// The source's scheme and host (`https://images.example.com`), a file's "file", or a custom
    /// source's "custom".
    static func name(_ source: ImageSource, on span: any Span) {
        switch source.kind {
        case let .url(url, _):
            span.attributes["url.scheme"] = url.scheme ?? ""
            if let host = url.host, !url.isFileURL { span.attributes["server.address"] = host }
        case .file:
            span.attributes["url.scheme"] = "file"
        case .custom:
            span.attributes["url.scheme"] = "custom"
        }
    }
}
