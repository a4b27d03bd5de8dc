import ImageryImgproxy
import Testing

/// The signature against imgproxy itself: its documented example, its own Go test vectors, and
/// values computed once with Python's `hmac` (pasted, not recomputed here).
@Suite("ImgproxySigner: imgproxy's signature")
struct ImgproxySignerTests {
    @Test("imgproxy's documented example (docs, \"Signing the URL\"): key `secret`, salt `hello`")
    func documentedExample() throws {
        let signer = try ImgproxySigner(keysHex: "736563726574", saltsHex: "68656C6C6F")
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(signer.sign(path) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(signer.isValid("oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", for: path))
    }

    @Test("imgproxy's Go test vectors: truncation, a second pair, trusted signatures")
    func goVectors() throws {
        // security/signature_test.go (3.x): key "test-key", salt "test-salt", path "asd".
        let pair1 = (key: "746573742d6b6579", salt: "746573742d73616c74")
        let pair2 = (key: "746573742d6b657932", salt: "746573742d73616c7432")
        let full = try ImgproxySigner(keysHex: pair1.key, saltsHex: pair1.salt)
        #expect(full.isValid("dtLwhdnPPiu_epMl1LrzheLpvHas-4mwvY6L3Z8WwlY", for: "asd"))
        #expect(!full.isValid("dtLwhdnPPis", for: "asd"))   // a truncated signature fails a full-size check

        let truncated = try ImgproxySigner(keysHex: pair1.key, saltsHex: pair1.salt, signatureSize: 8)
        #expect(truncated.sign("asd") == "dtLwhdnPPis")
        #expect(truncated.isValid("dtLwhdnPPis", for: "asd"))
        #expect(!truncated.isValid("dtLwhdnPPiu_epMl1LrzheLpvHas-4mwvY6L3Z8WwlY", for: "asd"))

        let rotated = try ImgproxySigner(keysHex: "\(pair1.key),\(pair2.key)", saltsHex: "\(pair1.salt),\(pair2.salt)")
        #expect(rotated.isValid("dtLwhdnPPiu_epMl1LrzheLpvHas-4mwvY6L3Z8WwlY", for: "asd"))
        #expect(rotated.isValid("jbDffNPt1-XBgDccsaE-XJB9lx8JIJqdeYIZKgOqZpg", for: "asd"))
        #expect(rotated.sign("asd") == "dtLwhdnPPiu_epMl1LrzheLpvHas-4mwvY6L3Z8WwlY")   // the first pair signs

        let trusting = try ImgproxySigner(keysHex: pair1.key, saltsHex: pair1.salt, trusted: ["truested"])
        #expect(trusting.isValid("truested", for: "asd"))
        #expect(!trusting.isValid("untrusted", for: "asd"))
    }

    @Test("Values from Python's hmac on imgproxy's scheme")
    func pythonVectors() throws {
        let signer = try ImgproxySigner(
            keysHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
            saltsHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        )
        let vectors = [
            ("/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png", "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw"),
            ("/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png", "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40"),
            ("/rs:fit:512:512/q:80/plain/http://127.0.0.1:8080/photo.jpg@webp", "GjljvF9tcbaYktYcBEiDQxioBY-rvLqFSXrERWHlkdM"),
        ]
        for (path, expected) in vectors {
            #expect(signer.sign(path) == expected)
            #expect(signer.isValid(expected, for: path))
            #expect(!signer.isValid(expected, for: path + "x"))
        }
        let unsalted = try ImgproxySigner(keysHex: "0123456789abcdef", saltsHex: "")
        #expect(unsalted.sign("/s:100:100/plain/local:///a.jpg") == "KI1F8-81ZsLi5qs2h4hnwlQajgEjrPKjtT1RyFYTStE")
        #expect(!unsalted.isValid("", for: "/s:100:100/plain/local:///a.jpg"))
        #expect(!unsalted.isValid("not base64!", for: "/s:100:100/plain/local:///a.jpg"))
    }

    @Test("Keys and salts that are not hex, empty keys, unequal counts and bad sizes are refused", arguments: [
        ("xyz", "", 32), ("abc", "", 32), ("", "00", 32), ("00", "0g", 32), ("00,11", "22", 32), ("00", "", 0), ("00", "", 33),
    ])
    func badKeys(key: String, salt: String, size: Int) {
        #expect(throws: ImgproxyError.self) { try ImgproxySigner(keysHex: key, saltsHex: salt, signatureSize: size) }
    }
}
