import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy

extension ImgproxySettings {
    static let formats: [ImgproxySetting] = [
        .deprecated("ENABLE_WEBP_DETECTION", of: "AUTO_WEBP"),
        .deprecated("ENABLE_AVIF_DETECTION", of: "AUTO_AVIF"),
        .converted(
            "SKIP_PROCESSING_FORMATS", .list, sets: ["skip-processing-formats"],
            note: "formats imgproxy reads that this build does not are left out, with a warning"
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .list(names) = value else { throw .invalid("expected a comma-separated list") }
            let given = names.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            if let unknown = given.first(where: { !ServerSettings.imgproxyFormatNames.contains($0) }) {
                throw .invalid("\(unknown.prefix(20)) is not an image format imgproxy knows")
            }
            let read = given.filter { ImageFormat(imgproxyExtension: $0).map(ImageDecoder.supportedFormats.contains) ?? false }
            try ServerSettings.setting(named: "skip-processing-formats").apply(&configuration, .list(read))
            let unread = given.filter { !read.contains($0) }
            return unread.isEmpty ? nil : "IMGPROXY_SKIP_PROCESSING_FORMATS lists \(unread.joined(separator: ", ")), which imagery-server does not read; left out"
        },
        .defaultOnly("PRESERVE_HDR", "false", why: "the pipeline is 8-bit: high-bit-depth sources are converted to 8 bits, as imgproxy does by default"),
    ]
}
