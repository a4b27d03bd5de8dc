import Imagery
import ImageryCodecs

/// `/info`'s `dominant_colors`: the six swatches of Android's Palette and node-vibrant, picked
/// from a median-cut palette of the draft by how close each colour's saturation and lightness
/// come to the swatch's target, and how many pixels it covers.
struct DominantColors {
    /// A swatch's targets: lightness and saturation (0–1), each with the range it must fall in.
    struct Target {
        let name: String
        let lightness: (minimum: Double, target: Double, maximum: Double)
        let saturation: (minimum: Double, target: Double, maximum: Double)
    }

    static let targets = [
        Target(name: "vibrant", lightness: (0.3, 0.5, 0.7), saturation: (0.35, 1, 1)),
        Target(name: "light_vibrant", lightness: (0.55, 0.74, 1), saturation: (0.35, 1, 1)),
        Target(name: "dark_vibrant", lightness: (0, 0.26, 0.45), saturation: (0.35, 1, 1)),
        Target(name: "muted", lightness: (0.3, 0.5, 0.7), saturation: (0, 0.3, 0.4)),
        Target(name: "light_muted", lightness: (0.55, 0.74, 1), saturation: (0, 0.3, 0.4)),
        Target(name: "dark_muted", lightness: (0, 0.26, 0.45), saturation: (0, 0.3, 0.4)),
    ]

    /// The swatches found, by name; with `buildsMissed`, a missing one is a found one's hue and
    /// saturation at the missing target's lightness.
    static func pick(from image: Bitmap, buildsMissed: Bool) -> [String: RGBA] {
        let swatches = ColorSwatch.swatches(of: image, count: 64)
        let largest = Double(swatches.first?.population ?? 1)
        var used = Set<RGBA>()
        var picked: [String: RGBA] = [:]
        for target in targets {
            var best: (score: Double, color: RGBA)?
            for swatch in swatches where !used.contains(swatch.color) {
                let hsl = HSL(swatch.color)
                guard (target.lightness.minimum...target.lightness.maximum).contains(hsl.lightness),
                      (target.saturation.minimum...target.saturation.maximum).contains(hsl.saturation) else { continue }
                // Android's weights: lightness counts most, then saturation and population alike.
                let saturation: Double = 0.24 * (1 - abs(hsl.saturation - target.saturation.target))
                let lightness: Double = 0.52 * (1 - abs(hsl.lightness - target.lightness.target))
                let population: Double = 0.24 * Double(swatch.population) / largest
                let score = saturation + lightness + population
                if best.map({ score > $0.score }) ?? true { best = (score, swatch.color) }
            }
            if let best {
                picked[target.name] = best.color
                used.insert(best.color)
            }
        }
        guard buildsMissed, !picked.isEmpty else { return picked }
        for target in targets where picked[target.name] == nil {
            // The nearest found swatch of the same kind (vibrant or muted) first, else any.
            let kind = target.name.hasSuffix("vibrant") ? "vibrant" : "muted"
            let source = targets.filter { $0.name.hasSuffix(kind) }.compactMap { picked[$0.name] }.first
                ?? targets.compactMap { picked[$0.name] }.first!
            var hsl = HSL(source)
            hsl.lightness = target.lightness.target
            picked[target.name] = hsl.rgba
        }
        return picked
    }
}

/// Hue, saturation and lightness, each 0–1.
struct HSL {
    var hue: Double
    var saturation: Double
    var lightness: Double

    init(_ color: RGBA) {
        let r = Double(color.red) / 255, g = Double(color.green) / 255, b = Double(color.blue) / 255
        let high = max(r, g, b), low = min(r, g, b), delta = high - low
        lightness = (high + low) / 2
        // Clamped: a pure light tint such as (255, 180, 180) computes a hair above 1, which put
        // it outside every swatch's saturation range.
        saturation = delta == 0 ? 0 : min(1, delta / (1 - abs(2 * lightness - 1)))
        var h: Double
        if delta == 0 {
            h = 0
        } else if high == r {
            h = ((g - b) / delta).truncatingRemainder(dividingBy: 6)
        } else if high == g {
            h = (b - r) / delta + 2
        } else {
            h = (r - g) / delta + 4
        }
        h /= 6
        hue = h < 0 ? h + 1 : h
    }

    var rgba: RGBA {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let h = hue * 6, x = chroma * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(h) % 6 {
        case 0: (chroma, x, 0)
        case 1: (x, chroma, 0)
        case 2: (0, chroma, x)
        case 3: (0, x, chroma)
        case 4: (x, 0, chroma)
        default: (chroma, 0, x)
        }
        let m = lightness - chroma / 2
        func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, ((value + m) * 255).rounded()))) }
        return RGBA(red: byte(r), green: byte(g), blue: byte(b))
    }
}
