/// Where a crop or a pad places its window, as in libvips, imgproxy and thumbor.
///
/// ```swift
/// request.processors = [.crop(width: 400, height: 400, gravity: .north)]   // keep the top
/// request.processors = [.crop(width: 400, height: 400, gravity: .focus(x: 0.3, y: 0.4))]
/// request.processors = [.fill(width: 400, height: 300, gravity: .smart)]   // the busiest part
/// request.processors = [.crop(width: 400, height: 400, gravity: .offset(.north, x: 0, y: 20))]
/// ```
public enum Gravity: Sendable, Hashable, CustomStringConvertible {
    /// The middle. The default.
    case center
    /// The top edge, centred horizontally.
    case north
    /// The bottom edge, centred horizontally.
    case south
    /// The right edge, centred vertically.
    case east
    /// The left edge, centred vertically.
    case west
    /// The top-right corner.
    case northEast
    /// The top-left corner.
    case northWest
    /// The bottom-right corner.
    case southEast
    /// The bottom-left corner.
    case southWest
    /// Centred on a point given as fractions of the width and height (0...1, from the top
    /// left), moved inwards as little as needed to stay inside the image.
    case focus(x: Double, y: Double)
    /// The window with the most detail (edge energy), as libvips' `interesting` crop does.
    case smart
    /// A compass gravity moved by `x` and `y` pixels of the image the window is placed in,
    /// as imgproxy's `g:no:0:20`: inwards from the edges it names (from the right for east,
    /// from the bottom for south), right and down from the centre. The window stays inside the
    /// image. Only a compass gravity takes offsets.
    indirect case offset(Gravity, x: Double, y: Double)

    /// How this gravity is written in cache keys: the processors' ``ImageProcessing/identifier``
    /// strings, and so the memory- and disk-cache keys, are made of it. Pinned by a golden test,
    /// never derived from ``description``: renaming a description must not invalidate a cache.
    public var identifier: String {
        switch self {
        case let .focus(x, y): "fp:\(x):\(y)"
        case let .offset(base, x, y): "\(base.identifier):\(x):\(y)"
        default: Self.names.first { $0.gravity == self }!.short
        }
    }

    public var description: String {
        switch self {
        case let .focus(x, y): "focus(\(x), \(y))"
        case let .offset(base, x, y): "\(base)+(\(x), \(y))"
        default: Self.names.first { $0.gravity == self }!.long
        }
    }

    /// The compass gravities and ``smart`` with their short names (imgproxy's, and the
    /// identifiers) and long names: the one table every name is read from and written with.
    package static let names: [(short: String, long: String, gravity: Gravity)] = [
        ("ce", "center", .center), ("no", "north", .north), ("so", "south", .south),
        ("ea", "east", .east), ("we", "west", .west), ("noea", "northeast", .northEast),
        ("nowe", "northwest", .northWest), ("soea", "southeast", .southEast), ("sowe", "southwest", .southWest),
        ("sm", "smart", .smart),
    ]

    /// A compass gravity or ``smart`` by name: the short names (`ce`, `no`, `noea`, `sm` …, as
    /// imgproxy writes them) or the long ones (`center`, `north`, `northeast`, `smart` …).
    package init?(name: String) {
        let name = name.lowercased()
        if name == "centre" {
            self = .center
            return
        }
        guard let entry = Self.names.first(where: { $0.short == name || $0.long == name }) else { return nil }
        self = entry.gravity
    }

    /// The short name of a compass gravity or ``smart``; `nil` for ``focus(x:y:)``.
    package var shortName: String? {
        Self.names.first { $0.gravity == self }?.short
    }

    /// The window's left/top edge as a fraction of the free space (0 = left/top, 1 =
    /// right/bottom), or `nil` for ``focus(x:y:)`` and ``smart``, which depend on more.
    var anchor: (x: Double, y: Double)? {
        switch self {
        case .center: (0.5, 0.5)
        case .north: (0.5, 0)
        case .south: (0.5, 1)
        case .east: (1, 0.5)
        case .west: (0, 0.5)
        case .northEast: (1, 0)
        case .northWest: (0, 0)
        case .southEast: (1, 1)
        case .southWest: (0, 1)
        case let .offset(base, _, _): base.anchor
        case .focus, .smart: nil
        }
    }

    /// Checks the parameters: a focus point outside 0...1 is refused, not clamped, so a
    /// caller's bug is not hidden.
    package func validate() throws(ImageError) {
        if case let .focus(x, y) = self, !((0...1).contains(x) && (0...1).contains(y)) {
            throw .invalidRequest("focus point (\(x), \(y)) must lie within 0...1")
        }
        if case let .offset(base, x, y) = self, base.anchor == nil || base.isOffset || !x.isFinite || !y.isFinite {
            throw .invalidRequest("offsets need a compass gravity and finite numbers, not \(self)")
        }
    }

    private var isOffset: Bool {
        if case .offset = self { return true }
        return false
    }

    /// The same gravity with its offsets multiplied by `factor`: for a window placed in a
    /// scaled copy of the image the offsets were given for.
    package func scaledOffsets(by factor: Double) -> Gravity {
        guard case let .offset(base, x, y) = self else { return self }
        return .offset(base, x: x * factor, y: y * factor)
    }

    /// The origin of a `window` inside `frame` (both in the same units) for every gravity
    /// but ``smart``, which needs the pixels (see ``SmartCrop``).
    package func origin(of window: (width: Double, height: Double), in frame: (width: Double, height: Double)) -> (x: Double, y: Double) {
        let free = (x: max(0, frame.width - window.width), y: max(0, frame.height - window.height))
        switch self {
        case let .focus(fx, fy):
            return (min(free.x, max(0, fx * frame.width - window.width / 2)),
                    min(free.y, max(0, fy * frame.height - window.height / 2)))
        case let .offset(base, x, y):
            let anchored = base.origin(of: window, in: frame)
            let anchor = base.anchor ?? (0.5, 0.5)
            // Inwards from a right or bottom edge; right and down otherwise.
            let moved = (x: anchored.x + (anchor.x == 1 ? -x : x), y: anchored.y + (anchor.y == 1 ? -y : y))
            return (min(free.x, max(0, moved.x)), min(free.y, max(0, moved.y)))
        default:
            let anchor = self.anchor ?? (0.5, 0.5)
            return (free.x * anchor.x, free.y * anchor.y)
        }
    }
}
