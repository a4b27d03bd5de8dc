import Imagery

/// The `X-Imagery-Instance` value. Set once the server has bound: with port 0 the default
/// (host:port) is only known then. Read on every response, so it is a lock, not an actor hop.
final class InstanceName: Sendable {
    private let name: Locked<String>
    private let isExplicit: Bool

    init(configuration: ServerConfiguration) {
        isExplicit = configuration.instanceName != nil
        name = Locked(configuration.instanceName ?? configuration.unixSocket.map { "unix:" + $0 } ?? "\(configuration.host):\(configuration.port)")
    }

    var value: String { name.withLock { $0 } }

    /// Records the address the server bound (`host:port`, or `unix:` and the socket's path),
    /// unless a name was given.
    func bound(_ address: String) {
        guard !isExplicit else { return }
        name.withLock { $0 = address }
    }
}
