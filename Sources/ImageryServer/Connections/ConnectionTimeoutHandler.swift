import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// The time limits of one HTTP/1 connection that Hummingbird's own idle timeout (the
/// keep-alive timeout) leaves out, in its channel pipeline after the HTTP codec:
///
/// - **Reading a request.** From the connection's start, or on a kept-alive connection from
///   the request's head, to the request's end (body included): past `readTimeout` the
///   connection is closed, as Go's `ReadTimeout` closes imgproxy's. A client that trickles
///   its first request, or a body, holds a connection no longer than that.
/// - **Writing a response.** From the response's head to its last byte handed to the socket:
///   past `writeTimeout` (a client that stopped reading) the connection is closed.
/// - **Keep-alive off** (`keepsAlive` false): every request is marked `Connection: close`, so
///   Hummingbird ends the connection after answering it, every response says so, and a client
///   that keeps the connection open anyway is closed `readTimeout` later.
///
/// ```text
/// accept ──read──▶ head … end ──(handler)──▶ head ──write──▶ end ──idle (keep-alive)──▶ head …
///        └ readTimeout ──────┘               └ writeTimeout ──────┘
/// ```
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let readTimeout: TimeAmount
    private let writeTimeout: TimeAmount
    private let keepsAlive: Bool
    private let logger: Logger
    private var reading: Scheduled<Void>?
    private var writing: Scheduled<Void>?

    init(readTimeout: TimeAmount, writeTimeout: TimeAmount, keepsAlive: Bool, logger: Logger) {
        self.readTimeout = readTimeout
        self.writeTimeout = writeTimeout
        self.keepsAlive = keepsAlive
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startReading(context, why: "the request was not read") }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }

    func channelActive(context: ChannelHandlerContext) {
        if reading == nil { startReading(context, why: "the request was not read") }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case var .head(head):
            if reading == nil { startReading(context, why: "the request was not read") }
            guard !keepsAlive else { break }
            // Hummingbird ends a connection after answering a request that asks it to.
            head.headerFields[.connection] = "close"
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        case .body:
            break
        case .end:
            reading?.cancel()
            reading = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case var .head(head):
            writing?.cancel()
            writing = schedule(context, after: writeTimeout, why: "the response was not written")
            guard !keepsAlive else { break }
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .body:
            break
        case .end:
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { [self] _ in
                writing?.cancel()
                writing = nil
                // A client told to close that does not is closed for it.
                if !keepsAlive, reading == nil { startReading(context, why: "the client kept a closed connection open") }
            }
            return
        }
        context.write(data, promise: promise)
    }

    private func startReading(_ context: ChannelHandlerContext, why: String) {
        reading?.cancel()
        reading = schedule(context, after: readTimeout, why: why)
    }

    private func schedule(_ context: ChannelHandlerContext, after timeout: TimeAmount, why: String) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            logger.debug("closing a connection", metadata: ["why": "\(why) within \(timeout.nanoseconds / 1_000_000) ms"])
            cancelTimers()
            context.close(promise: nil)
        }
    }

    private func cancelTimers() {
        reading?.cancel()
        reading = nil
        writing?.cancel()
        writing = nil
    }
}

@available(*, unavailable)
extension ConnectionTimeoutHandler: Sendable {}
