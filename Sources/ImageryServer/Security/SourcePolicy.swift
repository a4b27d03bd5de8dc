import Foundation
import Imagery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which sources the server fetches: the allowlist of prefixes, the SSRF guard on every
/// address of every hop, and `local://` paths kept inside the local root.
struct SourcePolicy: Sendable {
    /// Source URL prefixes that may be fetched; empty allows any.
    var allowedPrefixes: [String] = []
    /// Whether loopback origins may be fetched (for local use and tests).
    var allowLoopback = false
    /// The directory `local:///path` sources are read from; `nil` turns them off.
    var localRoot: String?
    /// Host name to addresses. Injectable so the guard's decisions are tested without DNS.
    var resolve: @Sendable (String) -> [String] = SourcePolicy.systemResolve

    /// The pipeline source for a request's source URL, or why it is refused. Nothing is
    /// fetched here: addresses are checked again, after resolution, on every hop.
    func source(for url: String) throws(ServerError) -> ImageSource {
        if url.hasPrefix("local://") {
            return .file(try localPath(for: url))
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parsed.host, !host.isEmpty
        else { throw .badRequest("source: not an http(s) or local:// URL") }
        try checkAllowlist(url)
        if let literal = AddressClassifier.classify(host), !literal.isAllowed(allowLoopback: allowLoopback) {
            throw .forbidden("source: \(literal.rawValue) addresses are refused")
        }
        return .url(parsed)
    }

    /// The check every hop passes before it is requested (the first included): the
    /// allowlist, then every address the host resolves to.
    func checkHop(_ url: URL) throws(DataLoadingError) {
        let described = url.host ?? "source"
        do throws(ServerError) {
            try checkAllowlist(url.absoluteString)
        } catch {
            throw .redirectRefused(source: described, detail: "not in the allowed sources")
        }
        guard let host = url.host, !host.isEmpty else { throw .redirectRefused(source: described, detail: "no host") }
        let addresses = AddressClassifier.classify(host) != nil ? [host] : resolve(host)
        guard !addresses.isEmpty else { throw .connectionFailed(source: described, detail: "host not found") }
        for address in addresses {
            let kind = AddressClassifier.classify(address) ?? .reserved
            if !kind.isAllowed(allowLoopback: allowLoopback) {
                throw .redirectRefused(source: described, detail: "\(kind.rawValue) addresses are refused")
            }
        }
    }

    private func checkAllowlist(_ url: String) throws(ServerError) {
        guard !allowedPrefixes.isEmpty else { return }
        guard allowedPrefixes.contains(where: { url.hasPrefix($0) }) else {
            throw .forbidden("source: not in the allowed sources")
        }
    }

    /// `local:///a/b.jpg` → `<root>/a/b.jpg`, refused when the resolved path (symlinks
    /// followed) leaves the root.
    func localPath(for url: String) throws(ServerError) -> String {
        guard let localRoot else { throw .forbidden("source: local sources are off (no --local-root)") }
        let relative = String(url.dropFirst("local://".count))
        guard let decoded = relative.removingPercentEncoding, !decoded.contains("\0") else {
            throw .badRequest("source: not a valid local path")
        }
        guard let root = Self.realPath(localRoot) else { throw .notFound("source: not found") }
        let joined = URL(fileURLWithPath: root).appendingPathComponent(decoded).standardizedFileURL.path
        // A path that does not exist cannot escape; one that does is judged by its real path.
        let resolved = Self.realPath(joined) ?? joined
        guard resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw .forbidden("source: outside the local root")
        }
        return resolved
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Every address `host` resolves to, through the system resolver.
    @Sendable static func systemResolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var node = list
        while let entry = node?.pointee {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.ai_addr, entry.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            node = entry.ai_next
        }
        return addresses
    }
}
