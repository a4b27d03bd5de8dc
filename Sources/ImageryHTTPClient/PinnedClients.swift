import AsyncHTTPClient
import Imagery

/// HTTP clients that each connect one host to one checked address (AsyncHTTPClient pins an
/// address only client-wide, through `dnsOverride`), kept so that connections are pooled per
/// host and address as they would be in one client. A small least-recently-used set: a client
/// leaves when it is unused and others are needed, and is shut down then.
final class PinnedClients: Sendable {
    /// A client lent for one request; give it back with ``PinnedClients/release(_:)`` once the
    /// body has been read.
    struct Lease: Sendable {
        let client: HTTPClient
        fileprivate let key: String
    }

    private struct Entry {
        let client: HTTPClient
        var leases = 0
        var lastUse: UInt64 = 0
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
        /// Shutdowns of retired clients under way, each removing itself when done.
        var retiring: [UInt64: Task<Void, Never>] = [:]
        var isShutDown = false
    }

    private let state = Locked(State())
    private let capacity: Int
    private let configuration: HTTPClient.Configuration

    init(configuration: HTTPClient.Configuration, capacity: Int = 32) {
        self.configuration = configuration
        self.capacity = capacity
    }

    /// A client whose connections to `host` go to `address`; `nil` once the set is shut down.
    func lease(host: String, address: String) -> Lease? {
        let key = host + "|" + address
        return state.withLock { state -> Lease? in
            guard !state.isShutDown else { return nil }
            state.clock += 1
            if var entry = state.entries[key] {
                entry.leases += 1
                entry.lastUse = state.clock
                state.entries[key] = entry
                return Lease(client: entry.client, key: key)
            }
            var pinned = configuration
            pinned.dnsOverride = [host: address]
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pinned)
            state.entries[key] = Entry(client: client, leases: 1, lastUse: state.clock)
            retireUnused(&state)
            return Lease(client: client, key: key)
        }
    }

    func release(_ lease: Lease) {
        state.withLock { state in
            state.entries[lease.key]?.leases -= 1
            retireUnused(&state)
        }
    }

    /// Shuts every client down, those already retired included.
    func shutdown() async {
        let (clients, retiring) = state.withLock { state in
            state.isShutDown = true
            defer { state.entries = [:] }
            return (state.entries.values.map(\.client), Array(state.retiring.values))
        }
        for task in retiring { await task.value }
        for client in clients { try? await client.shutdown() }
    }

    /// Retires the least recently used unleased clients while there are more than `capacity`.
    private func retireUnused(_ state: inout State) {
        while state.entries.count > capacity,
              let (key, entry) = state.entries.filter({ $0.value.leases == 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
            state.entries[key] = nil
            let client = entry.client, id = state.clock
            state.retiring[id] = Task {
                try? await client.shutdown()
                self.state.withLock { _ = $0.retiring.removeValue(forKey: id) }
            }
        }
    }
}
