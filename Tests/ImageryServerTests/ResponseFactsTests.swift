import HTTPTypes
import Imagery
@testable import ImageryServer
import NIOCore
import Testing

@Suite("What an answer was made from, as every tier stores it")
struct ResponseFactsTests {
    @Test("Facts survive the disk tier's entry; a part another version wrote, or a damaged one, is left out, not misread")
    func storedFacts() throws {
        var policy = ResponseHeaderPolicy(cacheControl: "max-age=60")
        policy.sendsDebugHeaders = true
        let facts = ResponseFacts(originBytes: 482_113, originWidth: 1920, originHeight: 1080, resultWidth: 300, resultHeight: 169, quality: 74)
        let response = CachedResponse(
            body: ByteBuffer(bytes: [1, 2, 3]), contentType: "image/jpeg", etag: "\"e\"", varyAccept: true, facts: facts, madeAt: 5, policy: policy
        )
        #expect(facts.stored == "ob=482113,ow=1920,oh=1080,rw=300,rh=169,q=74")
        let read = try #require(ResponseDiskTier.decode(ResponseDiskTier.encode(response), policy: policy))
        #expect(read.facts == facts && Array(read.body.readableBytesView) == [1, 2, 3] && read.madeAt == 5 && read.varyAccept)
        #expect(read.headers[HTTPField.Name("X-Imagery-Quality")!] == "74" && read.headers[HTTPField.Name("X-Origin-Content-Length")!] == "482113")
        #expect(ResponseFacts(stored: "ob=12,zz=3,ow=-4,oh=x,q=70,rw").stored == "ob=12,q=70")
        #expect(ResponseFacts().headers.isEmpty && ResponseFacts(quality: 80).headers.count == 1)

        // Off, nothing is sent, though the facts are kept.
        let quiet = try #require(ResponseDiskTier.decode(ResponseDiskTier.encode(response), policy: ResponseHeaderPolicy(cacheControl: "max-age=60")))
        #expect(quiet.facts == facts && quiet.headers[HTTPField.Name("X-Imagery-Quality")!] == nil)
    }

    @Test("An entry of the previous version (IMR2, without facts) is still a hit after an upgrade, with no debug headers")
    func previousVersionIsRead() throws {
        var entry = Array("IMR2".utf8)
        for field in ["image/webp", "\"tag\"", "max-age=9", "", "Wed, 21 Oct 2015 07:28:00 GMT"] {
            entry += [UInt8(field.utf8.count), 0] + Array(field.utf8)
        }
        entry += [0] + [UInt8](repeating: 0, count: 8) + [9, 9]
        var policy = ResponseHeaderPolicy(cacheControl: "max-age=60")
        policy.sendsDebugHeaders = true
        let read = try #require(ResponseDiskTier.decode(entry, policy: policy))
        #expect(read.contentType == "image/webp" && read.etag == "\"tag\"" && read.source.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(read.facts == ResponseFacts() && Array(read.body.readableBytesView) == [9, 9])
        #expect(ResponseDiskTier.decode(Array("IMR9".utf8) + entry.dropFirst(4), policy: policy) == nil)
    }
}
