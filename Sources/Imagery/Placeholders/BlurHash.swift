import Foundation

/// A BlurHash: a short string (20–30 characters for the usual 4 × 3 components) that decodes to a
/// blurred picture of an image (Wolt's published algorithm: a cosine transform of the image in
/// linear light, the DC term as sRGB and each AC term quantised to 19 levels a channel, in base 83).
///
/// ```swift
/// let hash = try BlurHash(image: thumbnail, componentsX: 4, componentsY: 3)
/// print(hash.string)                                        // 28 characters of base 83
/// let placeholder = BlurHash(string: hash.string)?.image(width: 32, height: 32)
/// ```
public struct BlurHash: Sendable, Hashable {
    /// The hash, `4 + 2 × componentsX × componentsY` characters of base 83.
    public let string: String

    /// The hash of `image` with `componentsX` × `componentsY` components (1–9 each; imgproxy's
    /// `bh:x:y`). Alpha is ignored, as the reference does. The image is fitted within 100 × 100
    /// first: the transform costs every pixel once per component.
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for components outside 1–9.
    public init(image: Bitmap, componentsX: Int, componentsY: Int) throws(ImageError) {
        guard (1...9).contains(componentsX), (1...9).contains(componentsY) else {
            throw .invalidRequest("BlurHash takes 1 to 9 components each way, not \(componentsX)x\(componentsY)")
        }
        var image = image
        if image.width > 100 || image.height > 100 { image = try image.resized(.fit(width: 100, height: 100)) }
        string = Self.encode(image.withStraightAlpha(), componentsX: componentsX, componentsY: componentsY)
    }

    /// A hash read back from its string; `nil` when it is not one (wrong length or characters).
    public init?(string: String) {
        let digits = Array(string.utf8)
        guard digits.count >= 6, digits.allSatisfy({ Base83.value(of: $0) != nil }) else { return nil }
        let size = Base83.decode(digits[0..<1])
        guard digits.count == 4 + 2 * (size % 9 + 1) * (size / 9 + 1) else { return nil }
        self.string = string
    }

    /// Components across and down.
    public var components: (x: Int, y: Int) {
        let size = Base83.decode(Array(string.utf8)[0..<1])
        return (size % 9 + 1, size / 9 + 1)
    }

    /// The placeholder at `width` × `height`, opaque; `punch` scales the AC terms (1: as stored,
    /// more: more contrast).
    public func image(width: Int, height: Int, punch: Double = 1) -> Bitmap {
        let digits = Array(string.utf8)
        let (nx, ny) = components
        let maximum = Double(Base83.decode(digits[1..<2]) + 1) / 166 * punch
        var colours = [Linear(dc: Base83.decode(digits[2..<6]))]
        for index in 1..<(nx * ny) {
            colours.append(Linear(ac: Base83.decode(digits[(4 + index * 2)..<(6 + index * 2)]), maximum: maximum))
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var cosX = [Double](repeating: 0, count: width * nx)
        for x in 0..<width {
            for i in 0..<nx { cosX[x * nx + i] = cos(.pi * Double(x) * Double(i) / Double(width)) }
        }
        for y in 0..<height {
            let cosY = (0..<ny).map { cos(.pi * Double(y) * Double($0) / Double(height)) }
            for x in 0..<width {
                var sum = Linear(red: 0, green: 0, blue: 0)
                for j in 0..<ny {
                    for i in 0..<nx {
                        let basis = cosX[x * nx + i] * cosY[j], colour = colours[i + j * nx]
                        sum.red += colour.red * basis
                        sum.green += colour.green * basis
                        sum.blue += colour.blue * basis
                    }
                }
                let out = (y * width + x) * 4
                pixels[out] = UInt8(Self.sRGB(sum.red))
                pixels[out + 1] = UInt8(Self.sRGB(sum.green))
                pixels[out + 2] = UInt8(Self.sRGB(sum.blue))
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels, alphaMode: .opaque)
    }
}

extension BlurHash {
    /// A colour in linear light.
    struct Linear {
        var red: Double
        var green: Double
        var blue: Double

        init(red: Double, green: Double, blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// The DC term: an sRGB colour in 24 bits.
        init(dc value: Int) {
            self.init(red: BlurHash.linear(value >> 16), green: BlurHash.linear(value >> 8 & 255), blue: BlurHash.linear(value & 255))
        }

        /// An AC term: three 19-level quantities, each signed and squared back.
        init(ac value: Int, maximum: Double) {
            func level(_ quantity: Int) -> Double { signedPower((Double(quantity) - 9) / 9, 2) * maximum }
            self.init(red: level(value / (19 * 19)), green: level(value / 19 % 19), blue: level(value % 19))
        }
    }

    static func encode(_ image: Bitmap, componentsX nx: Int, componentsY ny: Int) -> String {
        let width = image.width, height = image.height
        var linearPixels = [Double](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = image.pixel(x: x, y: y), index = (y * width + x) * 3
                linearPixels[index] = linearTable[Int(pixel.red)]
                linearPixels[index + 1] = linearTable[Int(pixel.green)]
                linearPixels[index + 2] = linearTable[Int(pixel.blue)]
            }
        }
        // The same cosines the reference computes per pixel, once per column and row.
        let cosX = (0..<nx).map { i in (0..<width).map { x in cos(.pi * Double(i) * Double(x) / Double(width)) } }
        let cosY = (0..<ny).map { j in (0..<height).map { y in cos(.pi * Double(j) * Double(y) / Double(height)) } }
        var factors: [Linear] = []
        for j in 0..<ny {
            for i in 0..<nx {
                let normalisation: Double = i == 0 && j == 0 ? 1 : 2
                var sum = Linear(red: 0, green: 0, blue: 0)
                for y in 0..<height {
                    let cosY = cosY[j][y]
                    for x in 0..<width {
                        let basis = normalisation * cosX[i][x] * cosY
                        let index = (y * width + x) * 3
                        sum.red += basis * linearPixels[index]
                        sum.green += basis * linearPixels[index + 1]
                        sum.blue += basis * linearPixels[index + 2]
                    }
                }
                let scale = 1 / Double(width * height)
                factors.append(Linear(red: sum.red * scale, green: sum.green * scale, blue: sum.blue * scale))
            }
        }
        var hash = Base83.encode((nx - 1) + (ny - 1) * 9, digits: 1)
        let ac = factors.dropFirst()
        var maximum = 1.0
        if ac.isEmpty {
            hash += Base83.encode(0, digits: 1)
        } else {
            let largest = ac.map { max(abs($0.red), abs($0.green), abs($0.blue)) }.max() ?? 0
            let quantised = Int(max(0, min(82, (largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += Base83.encode(quantised, digits: 1)
        }
        let dc = factors[0]
        hash += Base83.encode(sRGB(dc.red) << 16 | sRGB(dc.green) << 8 | sRGB(dc.blue), digits: 4)
        for factor in ac {
            func level(_ value: Double) -> Int { Int(max(0, min(18, (signedPower(value / maximum, 0.5) * 9 + 9.5).rounded(.down)))) }
            hash += Base83.encode(level(factor.red) * 19 * 19 + level(factor.green) * 19 + level(factor.blue), digits: 2)
        }
        return hash
    }

    /// ``linear(_:)`` of every byte.
    static let linearTable = (0...255).map(linear)

    /// An sRGB byte in linear light, 0–1.
    static func linear(_ value: Int) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light as an sRGB byte, rounded half up.
    static func sRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        return v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }
}

private func signedPower(_ value: Double, _ exponent: Double) -> Double {
    value < 0 ? -pow(-value, exponent) : pow(value, exponent)
}

/// BlurHash's base 83: digits, letters and 21 punctuation marks, most significant first.
enum Base83 {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)
    private static let values: [UInt8: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })

    static func value(of digit: UInt8) -> Int? { values[digit] }

    static func encode(_ value: Int, digits: Int) -> String {
        var text = [UInt8]()
        var divisor = 1
        for _ in 1..<digits { divisor *= 83 }
        for _ in 0..<digits {
            text.append(alphabet[value / divisor % 83])
            divisor /= 83
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decode(_ digits: ArraySlice<UInt8>) -> Int {
        digits.reduce(0) { $0 * 83 + (values[$1] ?? 0) }
    }

    static func decode(_ digits: [UInt8]) -> Int { decode(digits[...]) }
}
