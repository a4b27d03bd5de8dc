@testable import Imagery
import Testing

struct MissingDecoderTests {
    @Test("Without ImageryCodecs in the process, a decode says what to import")
    func refusal() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1]
        #expect {
            try MissingDecoder().decode(jpeg, options: DecodingOptions())
        } throws: { error in
            guard case let .unsupportedFormat(format, reason) = error as? ImageError else { return false }
            return format == .jpeg && reason.contains("import ImageryCodecs")
        }
    }
}
