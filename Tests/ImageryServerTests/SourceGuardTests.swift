import Foundation
@testable import ImageryServer
import Imagery
import ImageryHTTPClient
import Testing

/// The SSRF guard as pure functions: no address here is ever connected to.
@Suite("The SSRF guard and the source policy", .timeLimit(.minutes(10)))
struct SourceGuardTests {
    @Test("Every IPv4 range is classified", arguments: [
        ("0.0.0.0", AddressClass.unspecified), ("0.1.2.3", .unspecified),
        ("10.0.0.1", .private), ("10.255.255.255", .private),
        ("100.63.255.255", .public), ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace), ("100.128.0.0", .public),
        ("127.0.0.1", .loopback), ("127.255.0.9", .loopback),
        ("169.254.169.254", .linkLocal),
        ("172.15.255.255", .public), ("172.16.0.1", .private), ("172.31.255.255", .private), ("172.32.0.0", .public),
        ("192.0.0.8", .reserved), ("192.0.2.1", .reserved), ("192.88.99.1", .reserved),
        ("192.168.1.1", .private), ("198.18.0.1", .reserved), ("198.19.255.255", .reserved), ("198.51.100.7", .reserved),
        ("203.0.113.9", .reserved), ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
        ("240.0.0.1", .reserved), ("255.255.255.255", .reserved),
        ("8.8.8.8", .public), ("93.184.216.34", .public), ("1.1.1.1", .public),
    ])
    func ipv4(_ address: String, _ expected: AddressClass) {
        #expect(AddressClassifier.classify(address) == expected)
    }

    @Test("Every IPv6 range is classified, mapped addresses included", arguments: [
        ("::", AddressClass.unspecified), ("::1", .loopback), ("[::1]", .loopback),
        ("::ffff:127.0.0.1", .ipv4Mapped), ("::ffff:10.0.0.1", .ipv4Mapped), ("::ffff:8.8.8.8", .ipv4Mapped),
        ("::ffff:7f00:1", .ipv4Mapped), ("::127.0.0.1", .reserved),
        ("fc00::1", .private), ("fd12:3456::1", .private), ("fec0::1", .private),
        ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("ff02::1", .multicast), ("ff05::2", .multicast),
        ("2001:db8::1", .reserved), ("64:ff9b::a00:1", .reserved), ("100::1", .reserved),
        ("2606:4700:4700::1111", .public), ("2a00:1450:4001::200e", .public),
    ])
    func ipv6(_ address: String, _ expected: AddressClass) {
        #expect(AddressClassifier.classify(address) == expected)
    }

    /// Pure classification only: no test ever connects to one of these addresses.
    @Test("IPv6 forms that carry an IPv4 address are as private as that address: 6to4, Teredo, ISATAP, SIIT", arguments: [
        // 6to4, 2002:AABB:CCDD::/48.
        ("2002:a9fe:a9fe::", AddressClass.linkLocal), ("2002:7f00:1::1", .loopback), ("2002:0a00:0001::", .private),
        ("2002:c0a8:0101:1::1", .private), ("2002:6440:0001::", .sharedAddressSpace), ("2002:e000:0001::", .multicast),
        ("2002:0000:0000::", .unspecified), ("2002:0808:0808::1", .public),
        // Teredo, 2001:0::/32: the server's address, then the client's with its bits inverted.
        ("2001:0:a9fe:a9fe::1", .linkLocal), ("2001:0:0808:0808:0:0:80ff:fffe", .loopback),
        ("2001:0:0808:0808:8000:f227:f5ff:fffe", .private), ("2001:0:0808:0808:8000:f227:f7f7:f7f7", .public),
        // ISATAP: 0:5efe or 200:5efe before the IPv4 address, under any prefix.
        ("2001:4860::5efe:a9fe:a9fe", .linkLocal), ("2001:4860::200:5efe:7f00:1", .loopback),
        ("2001:4860::5efe:c0a8:1", .private), ("2001:4860::200:5efe:808:808", .public),
        // SIIT's IPv4-translated form, ::ffff:0:a.b.c.d: refused as IPv4 in IPv6 clothing.
        ("::ffff:0:127.0.0.1", .ipv4Mapped), ("::ffff:0:a9fe:a9fe", .ipv4Mapped), ("::ffff:0:8.8.8.8", .ipv4Mapped),
    ])
    func embeddedIPv4(_ address: String, _ expected: AddressClass) {
        #expect(AddressClassifier.classify(address) == expected)
    }

    @Test("Host names are not IP literals")
    func names() {
        for name in ["localhost", "example.com", "127.0.0.1.nip.io", "0x7f000001", "2130706433", ""] {
            #expect(AddressClassifier.classify(name) == nil, "\(name)")
        }
    }

    @Test("Only public addresses pass by default; loopback with the flag; nothing else ever")
    func policy() {
        for kind in [AddressClass.private, .linkLocal, .sharedAddressSpace, .multicast, .unspecified, .ipv4Mapped, .reserved] {
            #expect(!kind.isAllowed(allowLoopback: false) && !kind.isAllowed(allowLoopback: true))
        }
        #expect(AddressClass.public.isAllowed(allowLoopback: false))
        #expect(!AddressClass.loopback.isAllowed(allowLoopback: false) && AddressClass.loopback.isAllowed(allowLoopback: true))
    }

    /// Answers from a table, as DNS would; no name here is ever looked up or connected to.
    struct TableResolver: HostResolving {
        let table: [String: [String]]
        func addresses(of host: String) async throws(DataLoadingError) -> [String] { table[host] ?? [] }
    }

    @Test("Every address a name resolves to is checked: one private answer refuses the host")
    func resolvedNames() async throws {
        var policy = SourcePolicy()
        policy.resolver = TableResolver(table: [
            "cdn.test": ["93.184.216.34", "2606:4700:4700::1111"],
            "rebind.test": ["93.184.216.34", "10.0.0.7"],
            "metadata.test": ["169.254.169.254"],
        ])
        let guarding = policy.connectionGuard
        #expect(try await guarding.address(for: "cdn.test") == "93.184.216.34")
        // Each for its own reason: a refusal naming the class, not a lookup that failed.
        let refusals: [(host: String, error: DataLoadingError)] = [
            ("rebind.test", .redirectRefused(source: "rebind.test", detail: "private addresses are refused")),
            ("metadata.test", .redirectRefused(source: "metadata.test", detail: "link-local addresses are refused")),
            ("[::ffff:127.0.0.1]", .redirectRefused(source: "[::ffff:127.0.0.1]", detail: "IPv4-mapped IPv6 addresses are refused")),
            ("127.0.0.1", .redirectRefused(source: "127.0.0.1", detail: "loopback addresses are refused")),
            ("unknown.test", .connectionFailed(source: "unknown.test", detail: "host not found")),   // resolves to nothing
        ]
        for (host, error) in refusals {
            await #expect(throws: error, "\(host)") { try await guarding.address(for: host) }
        }
        policy.allowLoopback = true
        #expect(try await policy.connectionGuard.address(for: "127.0.0.1") == nil)   // a literal: connected to as it is
    }

    @Test("Loopback admitted at some addresses only: the others are refused by the same check, as sources and as resolved addresses")
    func loopbackAtSomeAddresses() throws {
        var policy = SourcePolicy()
        policy.allowLoopback = true
        policy.loopbackAddresses = ["127.0.0.1", "::1"]
        try policy.checkAddress("127.0.0.1", host: "origin.test")
        try policy.checkAddress("::1", host: "origin.test")
        #expect(throws: DataLoadingError.redirectRefused(source: "origin.test", detail: "loopback addresses are refused")) {
            try policy.checkAddress("127.0.0.2", host: "origin.test")
        }
        _ = try policy.source(for: "http://127.0.0.1:8080/a.jpg")
        _ = try policy.source(for: "http://[::1]:8080/a.jpg")
        #expect(throws: ServerError.forbidden("source: loopback addresses are refused")) { try policy.source(for: "http://127.0.0.2:8080/a.jpg") }
        // The list narrows the switch and never widens it: without the switch, none is admitted.
        policy.allowLoopback = false
        #expect(throws: DataLoadingError.redirectRefused(source: "origin.test", detail: "loopback addresses are refused")) {
            try policy.checkAddress("127.0.0.1", host: "origin.test")
        }
        // Only loopback is narrowed: a public address passes as before, a private one never does.
        try policy.checkAddress("93.184.216.34", host: "origin.test")
        #expect(throws: DataLoadingError.redirectRefused(source: "origin.test", detail: "private addresses are refused")) {
            try policy.checkAddress("10.0.0.1", host: "origin.test")
        }
    }

    @Test("The allowlist applies to the source and to every hop, with imgproxy's * within a segment")
    func allowlist() throws {
        var policy = SourcePolicy()
        policy.allowedPrefixes = ["https://images.test/", "https://*.cdn.test/photos/"]
        _ = try policy.source(for: "https://images.test/a.jpg")
        _ = try policy.source(for: "https://eu.cdn.test/photos/a.jpg")
        for refused in ["https://images.test.evil.test/a.jpg", "https://eu.cdn.test/other/a.jpg", "https://a/b.cdn.test/photos/x.jpg", "http://images.test/a.jpg"] {
            #expect(throws: ServerError.forbidden("source: not in the allowed sources"), "\(refused)") { try policy.source(for: refused) }
        }
        #expect(throws: DataLoadingError.redirectRefused(source: "other.test", detail: "not in the allowed sources")) {
            try policy.checkHop(URL(string: "https://other.test/a.jpg")!)
        }
        #expect(SourcePolicy.matches("https://a.b.cdn.test/photos/", prefix: "https://*.cdn.test/"))
        // `*` never crosses into a query, a fragment, credentials or a port: the host must match.
        for bypass in ["https://evil.test?.cdn.test/x.jpg", "https://evil.test#.cdn.test/x.jpg", "https://evil.test@x.cdn.test/x.jpg",
                       "https://evil.test\\.cdn.test/x.jpg", "https://evil.test:443.cdn.test/x.jpg"] {
            #expect(!SourcePolicy.matches(bypass, prefix: "https://*.cdn.test/"), "\(bypass)")
        }
        #expect(!SourcePolicy.matches("https://cdn.test/", prefix: "https://*.cdn.test/"))
    }

    @Test("An s3:// key with a . or .. segment, plain or percent-encoded, is 400 before its bucket is even looked at")
    func s3DotSegments() throws {
        var policy = SourcePolicy()
        policy.allowsS3 = true
        policy.allowedBuckets = ["photos"]
        _ = try policy.source(for: "s3://photos/album/a.jpg")
        for source in ["s3://photos/../secret/a.jpg", "s3://photos/%2e%2e/secret/a.jpg", "s3://photos/%2E%2e/secret/a.jpg",
                       "s3://photos/./a.jpg", "s3://photos/album/%2e/a.jpg", "s3://photos/a/..", "s3://other/../photos/a.jpg"] {
            #expect(throws: ServerError.badRequest("source: an s3:// key may not have a . or .. segment"), "\(source)") {
                try policy.source(for: source)
            }
        }
    }

    @Test("Literal addresses are refused before any request; other schemes are not sources")
    func literalSources() {
        let policy = SourcePolicy()
        #expect(throws: ServerError.self) { try policy.source(for: "http://127.0.0.1:8080/a.jpg") }
        #expect(throws: ServerError.self) { try policy.source(for: "http://[::1]/a.jpg") }
        #expect(throws: ServerError.badRequest("source: not an http(s) or local:// URL")) { try policy.source(for: "ftp://example.test/a.jpg") }
        #expect(throws: ServerError.badRequest("source: not an http(s) or local:// URL")) { try policy.source(for: "file:///etc/passwd") }
    }

    @Test("local:// stays inside the root: .., absolute tricks and symlinks out are refused")
    func localRoot() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-root-\(UInt64.random(in: 0...UInt64.max))")
        let outside = root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-outside")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        try Data([1]).write(to: root.appendingPathComponent("photos/a.jpg"))
        try Data([1]).write(to: outside.appendingPathComponent("secret.jpg"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link"), withDestinationURL: outside)

        var policy = SourcePolicy()
        #expect(throws: ServerError.forbidden("source: local sources are off (no --local-root)")) {
            try policy.localPath(for: "local:///photos/a.jpg")
        }
        policy.localRoot = root.path
        let inside = try policy.localPath(for: "local:///photos/a.jpg")
        #expect(inside.hasSuffix("/photos/a.jpg"))
        for escape in [
            "local:///../\(outside.lastPathComponent)/secret.jpg", "local:///photos/../../\(outside.lastPathComponent)/secret.jpg",
            "local:///%2e%2e/\(outside.lastPathComponent)/secret.jpg", "local:///link/secret.jpg",
        ] {
            #expect(throws: ServerError.forbidden("source: outside the local root"), "\(escape)") { try policy.localPath(for: escape) }
        }
        // An absolute path is taken relative to the root, never from /.
        #expect(try policy.localPath(for: "local:////etc/passwd").hasPrefix(root.resolvingSymlinksInPath().path))
    }
}

extension SourceGuardTests {
    @Test("Private and link-local origins: refused by default, each admitted by its own switch; multicast and reserved never")
    func privateAndLinkLocalSwitches() async throws {
        var policy = SourcePolicy()
        let urls = ["http://10.0.0.7/a.jpg", "http://100.64.0.1/a.jpg", "http://[fd00::1]/a.jpg", "http://169.254.169.254/a.jpg", "http://[fe80::1]/a.jpg"]
        for url in urls { #expect(throws: ServerError.self, "\(url)") { try policy.source(for: url) } }

        policy.allowPrivate = true
        for url in urls.prefix(3) { #expect(throws: Never.self, "\(url)") { try policy.source(for: url) } }
        for url in urls.suffix(2) { #expect(throws: ServerError.self, "\(url)") { try policy.source(for: url) } }
        #expect(throws: Never.self) { try policy.checkAddress("192.168.1.9", host: "nas.lan") }
        #expect(throws: DataLoadingError.self) { try policy.checkAddress("169.254.169.254", host: "metadata.test") }

        policy.allowPrivate = false
        policy.allowLinkLocal = true
        for url in urls.suffix(2) { #expect(throws: Never.self, "\(url)") { try policy.source(for: url) } }
        for url in urls.prefix(3) { #expect(throws: ServerError.self, "\(url)") { try policy.source(for: url) } }

        for kind in [AddressClass.multicast, .unspecified, .ipv4Mapped, .reserved] {
            #expect(!kind.isAllowed(allowLoopback: true, allowPrivate: true, allowLinkLocal: true), "\(kind)")
        }
        #expect(AddressClass.sharedAddressSpace.isAllowed(allowLoopback: false, allowPrivate: true, allowLinkLocal: false))
    }

    @Test("The defaults stay closed where imgproxy's are open: private sources are refused unless set, and setting them is warned about")
    func privateSourcesDefault() async throws {
        let defaults = try await ServerSettingsTests.load().configuration
        #expect(!defaults.allowPrivateSources && !defaults.allowLinkLocalSources)
        let opened = try await ServerSettingsTests.load(environment: [
            "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "true", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "true",
        ]).configuration
        #expect(opened.allowPrivateSources && opened.allowLinkLocalSources)
        let closed = try await ServerSettingsTests.load(environment: ["IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "false"]).configuration
        #expect(!closed.allowPrivateSources)
    }
}
