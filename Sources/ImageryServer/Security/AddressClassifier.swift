#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What kind of address an IP is, for the SSRF guard: only ``public`` addresses are fetched
/// by default; ``loopback``, ``private`` (with ``sharedAddressSpace``) and ``linkLocal`` each
/// with their switch; nothing else ever.
///
/// A pure function of the address, so every range is tested without sending a packet.
enum AddressClass: String, Sendable, Equatable {
    case `public`
    case loopback
    /// RFC 1918 and IPv6 unique local (fc00::/7), and the deprecated site-local fec0::/10.
    case `private`
    case linkLocal = "link-local"
    /// 100.64.0.0/10, carrier-grade NAT.
    case sharedAddressSpace = "shared address space"
    case multicast
    /// 0.0.0.0/8 and ::, which many stacks treat as "this host".
    case unspecified
    /// ::ffff:a.b.c.d (and SIIT's ::ffff:0:a.b.c.d): an IPv4 address in IPv6 clothing, refused
    /// outright so that no spelling of a private IPv4 address slips through as "IPv6".
    case ipv4Mapped = "IPv4-mapped IPv6"
    /// Documentation, benchmarking, broadcast, future use, NAT64, IPv4-compatible and other
    /// special-purpose ranges that no origin should live in.
    case reserved

    /// Whether a source at such an address may be fetched.
    func isAllowed(allowLoopback: Bool, allowPrivate: Bool = false, allowLinkLocal: Bool = false) -> Bool {
        switch self {
        case .public: true
        case .loopback: allowLoopback
        // imgproxy's private switch covers CGNAT too: both are someone's internal network.
        case .private, .sharedAddressSpace: allowPrivate
        case .linkLocal: allowLinkLocal
        // Multicast (link-local multicast included) takes no TCP connection; the rest are never an origin.
        case .multicast, .unspecified, .ipv4Mapped, .reserved: false
        }
    }
}

enum AddressClassifier {
    /// The class of an IP literal (`127.0.0.1`, `::1`, `[::1]`), or `nil` when `text` is not one.
    static func classify(_ text: String) -> AddressClass? {
        var literal = Substring(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(literal), &v4) == 1 {
            return classify(ipv4: withUnsafeBytes(of: v4.s_addr) { Array($0) })
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(literal), &v6) == 1 {
            return classify(ipv6: withUnsafeBytes(of: v6) { Array($0) })
        }
        return nil
    }

    /// `bytes` in network order, 4 of them.
    static func classify(ipv4 bytes: [UInt8]) -> AddressClass {
        precondition(bytes.count == 4, "an IPv4 address has 4 bytes")
        let a = bytes[0], b = bytes[1], c = bytes[2]
        switch (a, b, c) {
        case (0, _, _): return .unspecified
        case (10, _, _): return .private
        case (100, 64...127, _): return .sharedAddressSpace
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (172, 16...31, _): return .private
        case (192, 0, 0), (192, 0, 2), (192, 88, 99), (198, 51, 100), (203, 0, 113): return .reserved
        case (192, 168, _): return .private
        case (198, 18...19, _): return .reserved
        case (224...239, _, _): return .multicast
        case (240...255, _, _): return .reserved
        default: return .public
        }
    }

    /// `bytes` in network order, 16 of them. An address that carries an IPv4 address inside it
    /// (6to4, Teredo, ISATAP) is as private as that address: a relay or a host that unwraps it
    /// reaches the IPv4 host, so `2002:a9fe:a9fe::` is the link-local 169.254.169.254.
    static func classify(ipv6 bytes: [UInt8]) -> AddressClass {
        let byPrefix = classify(ipv6Prefix: bytes)
        guard byPrefix == .public else { return byPrefix }
        return embeddedIPv4(in: bytes).lazy.map(classify(ipv4:)).first { $0 != .public } ?? .public
    }

    private static func classify(ipv6Prefix bytes: [UInt8]) -> AddressClass {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes")
        let head = bytes.prefix(10)
        if bytes.allSatisfy({ $0 == 0 }) { return .unspecified }
        if bytes.dropLast().allSatisfy({ $0 == 0 }), bytes[15] == 1 { return .loopback }
        if head.allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return .ipv4Mapped }
        // ::ffff:0:a.b.c.d, SIIT's IPv4-translated form (RFC 2765): the same address again.
        if bytes.prefix(8).allSatisfy({ $0 == 0 }), bytes[8] == 0xFF, bytes[9] == 0xFF, bytes[10] == 0, bytes[11] == 0 { return .ipv4Mapped }
        if bytes.prefix(12).allSatisfy({ $0 == 0 }) { return .reserved }   // ::a.b.c.d, IPv4-compatible (deprecated)
        switch (bytes[0], bytes[1]) {
        case (0xFF, _): return .multicast
        case (0xFE, 0x80...0xBF): return .linkLocal
        case (0xFE, 0xC0...0xFF): return .private   // site-local, deprecated
        case (0xFC...0xFD, _): return .private
        case (0x20, 0x01) where bytes[2] == 0x0D && bytes[3] == 0xB8: return .reserved   // documentation
        case (0x00, 0x64) where bytes[2] == 0xFF && bytes[3] == 0x9B: return .reserved   // NAT64
        case (0x01, 0x00) where bytes[2...7].allSatisfy({ $0 == 0 }): return .reserved   // discard-only
        default: return .public
        }
    }

    /// The IPv4 addresses an IPv6 address carries: 6to4's (`2002:AABB:CCDD::/48`, RFC 3056),
    /// Teredo's server and client (`2001:0::/32`, the client's bits inverted, RFC 4380), and
    /// ISATAP's (an interface identifier of `0:5efe:a.b.c.d` or `200:5efe:a.b.c.d`, RFC 5214).
    static func embeddedIPv4(in bytes: [UInt8]) -> [[UInt8]] {
        var found: [[UInt8]] = []
        if bytes[0] == 0x20, bytes[1] == 0x02 { found.append(Array(bytes[2...5])) }
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0, bytes[3] == 0 {
            found.append(Array(bytes[4...7]))
            found.append(bytes[12...15].map { ~$0 })
        }
        if bytes[8] & 0xFC == 0, bytes[9] == 0, bytes[10] == 0x5E, bytes[11] == 0xFE { found.append(Array(bytes[12...15])) }
        return found
    }
}
