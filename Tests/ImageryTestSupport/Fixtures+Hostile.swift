extension Fixtures {
    /// `bytes` (a HEIF or AVIF file) with every `ispe` box, the declared size of each item,
    /// saying width × height instead: a header that claims what the data is not.
    package static func claimingSize(_ width: UInt32, _ height: UInt32, in bytes: [UInt8]) -> [UInt8] {
        var patched = bytes
        let tag = Array("ispe".utf8)
        var found = 0
        for index in 0..<(bytes.count - 16) where Array(bytes[index..<index + 4]) == tag {
            // ispe: 4-byte version and flags, then width and height, big-endian.
            for (offset, value) in [(8, width), (12, height)] {
                for byte in 0..<4 { patched[index + offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(byte))) }
            }
            found += 1
        }
        precondition(found > 0, "no ispe box: not a HEIF or AVIF file")
        return patched
    }
}

extension Fixtures {
    /// An animation bomb as scripts/make-gif-bomb.py writes it: a `size`×`size` screen and
    /// `frames` frames of one white pixel each, a few dozen bytes a frame.
    package static func gifBomb(frames: Int, size: Int) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes = Array("GIF89a".utf8) + le16(size) + le16(size) + [0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0, 1, 0, 0, 0]                 // 10 ms
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]              // 1x1 at (0, 0)
            bytes += [2, 2, 0x4C, 0x01, 0]                          // LZW: clear, 1, end
        }
        return bytes + [0x3B]
    }
}

extension Fixtures {
    /// An SVG claiming a `width` × `height` canvas, all of it one blue rectangle.
    package static func svgCanvas(width: Int, height: Int) -> [UInt8] {
        Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\"><rect width=\"\(width)\" height=\"\(height)\" fill=\"blue\"/></svg>".utf8)
    }

    /// `levels` groups, each using the one before `fanOut` times: a few hundred bytes that
    /// expand to `fanOut`^`levels` elements once every `<use>` is followed.
    package static func svgNestedUse(levels: Int = 10, fanOut: Int = 10) -> [UInt8] {
        var nested = "<g id=\"u0\"><rect width=\"1\" height=\"1\"/></g>"
        for level in 1...levels { nested += "<g id=\"u\(level)\">" + String(repeating: "<use href=\"#u\(level - 1)\"/>", count: fanOut) + "</g>" }
        return Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\"><defs>\(nested)</defs><use href=\"#u\(levels)\"/></svg>".utf8)
    }

    /// A billion laughs: `levels` entities, each ten of the one before, in a text element
    /// (10^`levels` copies of "lol" once expanded).
    package static func svgNestedEntities(levels: Int = 9) -> [UInt8] {
        var declarations = "<!ENTITY l0 \"lol\">"
        for level in 1...levels { declarations += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">" }
        return Array("<?xml version=\"1.0\"?><!DOCTYPE svg [\(declarations)]><svg xmlns=\"http://www.w3.org/2000/svg\"><text>&l\(levels);</text></svg>".utf8)
    }
}
