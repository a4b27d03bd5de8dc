import Imagery

/// Rewrites the size in a JPEG's frame header (SOF0/1/2): used to build hostile test files
/// that claim a huge size, for tests and the benchmark.
package enum JPEGFrameHeader {
    package static func settingSize(of jpeg: [UInt8], width: Int, height: Int) -> [UInt8]? {
        var data = jpeg
        var index = 2
        while index + 9 < data.count {
            guard data[index] == 0xFF else { index += 1; continue }
            let marker = data[index + 1]
            if [0xC0, 0xC1, 0xC2].contains(marker) {
                data[index + 5] = UInt8(truncatingIfNeeded: height >> 8)
                data[index + 6] = UInt8(truncatingIfNeeded: height)
                data[index + 7] = UInt8(truncatingIfNeeded: width >> 8)
                data[index + 8] = UInt8(truncatingIfNeeded: width)
                return data
            }
            index += 2 + (Int(data[index + 2]) << 8 | Int(data[index + 3]))
        }
        return nil
    }
}
