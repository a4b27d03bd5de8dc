#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An RGB matrix/TRC ICC profile (sRGB, Display P3, Adobe RGB, ProPhoto and the like),
/// reduced to what converting to sRGB needs: three tone curves and a 3×3 matrix.
///
/// LUT-based profiles (and CMYK or gray profiles) are not parsed; images carrying them are
/// passed through unconverted, and ``ColorProfileInfo/convertedToSRGB`` says so.
package struct ColorProfile: Sendable {
    package let name: String
    /// Linear profile RGB → linear sRGB, row-major.
    let matrix: [Float]
    /// Per channel: 8-bit encoded value → linear light.
    let curves: [[Float]]
    /// Whether the profile is sRGB already (within rounding), so no conversion is needed.
    package let isSRGB: Bool

    /// Parses `data`, or returns `nil` for anything but a well-formed RGB matrix/TRC profile.
    package init?(iccData data: some Collection<UInt8>) {
        let bytes = Array(data)
        guard bytes.count >= 132 else { return nil }
        func u32(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        }
        func s15f16(_ offset: Int) -> Double? { u32(offset).map { Double(Int32(bitPattern: UInt32($0))) / 65536 } }
        func tag(_ offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }

        guard tag(16) == "RGB ", let tagCount = u32(128), tagCount < 256 else { return nil }
        var tags: [String: (offset: Int, size: Int)] = [:]
        for index in 0..<tagCount {
            let entry = 132 + index * 12
            guard let offset = u32(entry + 4), let size = u32(entry + 8), entry + 12 <= bytes.count,
                  offset + size <= bytes.count, size >= 8 else { return nil }
            tags[tag(entry)] = (offset, size)
        }
        func xyz(_ name: String) -> [Double]? {
            guard let t = tags[name], t.size >= 20, tag(t.offset) == "XYZ ",
                  let x = s15f16(t.offset + 8), let y = s15f16(t.offset + 12), let z = s15f16(t.offset + 16) else { return nil }
            return [x, y, z]
        }
        func curve(_ name: String) -> [Float]? {
            guard let t = tags[name] else { return nil }
            let type = tag(t.offset)
            var transfer: (Double) -> Double
            if type == "curv", let count = u32(t.offset + 8) {
                if count == 0 {
                    transfer = { $0 }
                } else if count == 1, let g = u16(t.offset + 12) {
                    let gamma = Double(g) / 256
                    transfer = { pow($0, gamma) }
                } else {
                    guard count <= 65536, t.offset + 12 + count * 2 <= bytes.count else { return nil }
                    let table = (0..<count).map { Double(u16(t.offset + 12 + $0 * 2)!) / 65535 }
                    transfer = { x in
                        let position = x * Double(count - 1)
                        let i = min(count - 2, Int(position))
                        let f = position - Double(i)
                        return table[i] * (1 - f) + table[i + 1] * f
                    }
                }
            } else if type == "para", let function = u16(t.offset + 8) {
                let counts = [1, 3, 4, 5, 7]
                guard function < counts.count else { return nil }
                var p: [Double] = []
                for i in 0..<counts[function] {
                    guard let v = s15f16(t.offset + 12 + i * 4) else { return nil }
                    p.append(v)
                }
                let g = p[0]
                switch function {
                case 0: transfer = { pow($0, g) }
                case 1: transfer = { x in x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) : 0 }
                case 2: transfer = { x in x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) + p[3] : p[3] }
                case 3: transfer = { x in x >= p[4] ? pow(p[1] * x + p[2], g) : p[3] * x }
                default: transfer = { x in x >= p[4] ? pow(p[1] * x + p[2], g) + p[5] : p[3] * x + p[6] }
                }
            } else {
                return nil
            }
            return (0..<256).map { Float(max(0, min(1, transfer(Double($0) / 255)))) }
        }
        guard let red = xyz("rXYZ"), let green = xyz("gXYZ"), let blue = xyz("bXYZ"),
              let redCurve = curve("rTRC"), let greenCurve = curve("gTRC"), let blueCurve = curve("bTRC") else { return nil }

        // Profile colorants (D50-adapted, as ICC stores them) as columns.
        let source = [red[0], green[0], blue[0], red[1], green[1], blue[1], red[2], green[2], blue[2]]
        let matrix = Self.multiply(Self.srgbFromXYZD50, source)
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let matrixIsIdentity = zip(matrix, identity).allSatisfy { abs($0 - $1) < 0.01 }
        let srgbCurve = (0..<256).map { Float(Self.srgbToLinear(Double($0) / 255)) }
        let curvesAreSRGB = [redCurve, greenCurve, blueCurve].allSatisfy { curve in
            zip(curve, srgbCurve).allSatisfy { abs($0 - $1) < 0.004 }
        }
        self.name = Self.description(bytes: bytes, tag: tags["desc"]) ?? "unnamed ICC profile"
        self.matrix = matrix.map(Float.init)
        self.curves = [redCurve, greenCurve, blueCurve]
        self.isSRGB = matrixIsIdentity && curvesAreSRGB
    }

    /// Converts straight-alpha or opaque RGBA pixels in place from this profile to sRGB.
    package func convertToSRGB(_ bitmap: inout Bitmap) {
        guard !isSRGB else { return }
        let encode = Self.srgbEncodingTable
        let m = matrix
        let (r, g, b) = (curves[0], curves[1], curves[2])
        let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
        bitmap.pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let row = buffer.baseAddress! + y * stride
                for x in 0..<width {
                    let p = row + x * 4
                    let lr = r[Int(p[0])], lg = g[Int(p[1])], lb = b[Int(p[2])]
                    for c in 0..<3 {
                        let v = m[c * 3] * lr + m[c * 3 + 1] * lg + m[c * 3 + 2] * lb
                        p[c] = encode[Int(max(0, min(1, v)) * 4095 + 0.5)]
                    }
                }
            }
        }
    }

    /// Linear light in 4,096 steps → 8-bit sRGB, built once.
    static let srgbEncodingTable: [UInt8] = (0..<4096).map {
        UInt8(max(0, min(255, (linearToSRGB(Double($0) / 4095) * 255).rounded())))
    }

    static func srgbToLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func linearToSRGB(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    /// The inverse of sRGB's D50-adapted colorant matrix (from the IEC 61966-2.1 ICC profile).
    static let srgbFromXYZD50: [Double] = invert([
        0.4360747, 0.3850649, 0.1430804,
        0.2225045, 0.7168786, 0.0606169,
        0.0139322, 0.0971045, 0.7141733,
    ])

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var product = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                var sum = 0.0
                for k in 0..<3 { sum += a[row * 3 + k] * b[k * 3 + column] }
                product[row * 3 + column] = sum
            }
        }
        return product
    }

    static func invert(_ m: [Double]) -> [Double] {
        // Cofactor expansion: entry (r, c) of the inverse is the (c, r) cofactor over the determinant.
        func minor(_ r0: Int, _ r1: Int, _ c0: Int, _ c1: Int) -> Double {
            let a: Double = m[r0 * 3 + c0] * m[r1 * 3 + c1]
            let b: Double = m[r0 * 3 + c1] * m[r1 * 3 + c0]
            return a - b
        }
        let c00 = minor(1, 2, 1, 2), c01 = -minor(1, 2, 0, 2), c02 = minor(1, 2, 0, 1)
        let det: Double = m[0] * c00 + m[1] * c01 + m[2] * c02
        let cofactors: [Double] = [
            c00, -minor(0, 2, 1, 2), minor(0, 1, 1, 2),
            c01, minor(0, 2, 0, 2), -minor(0, 1, 0, 2),
            c02, -minor(0, 2, 0, 1), minor(0, 1, 0, 1),
        ]
        return cofactors.map { $0 / det }
    }

    /// Reads a v2 `desc` (ASCII) or v4 `mluc` (UTF-16BE, first record) description.
    private static func description(bytes: [UInt8], tag: (offset: Int, size: Int)?) -> String? {
        guard let tag else { return nil }
        let start = tag.offset, end = tag.offset + tag.size
        let type = String(decoding: bytes[start..<start + 4], as: UTF8.self)
        func u32(_ o: Int) -> Int? {
            guard o + 4 <= end else { return nil }
            return Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3])
        }
        if type == "desc", let count = u32(start + 8), count > 0, start + 12 + count <= end {
            return String(decoding: bytes[(start + 12)..<(start + 12 + count)].prefix { $0 != 0 }, as: UTF8.self)
        }
        if type == "mluc", let records = u32(start + 8), records > 0,
           let length = u32(start + 20), let offset = u32(start + 24), start + offset + length <= end {
            let utf16 = stride(from: start + offset, to: start + offset + length - 1, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return String(decoding: utf16, as: UTF16.self)
        }
        return nil
    }
}
