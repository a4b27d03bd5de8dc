#if os(Linux)
import CoreGraphicsStub

/// https://developer.apple.com/documentation/swiftui/image
nonisolated public struct Image: View, Equatable {
    public typealias Body = Never

    /// https://developer.apple.com/documentation/swiftui/image/orientation
    public enum Orientation: UInt8, CaseIterable, Hashable, Sendable {
        case up, upMirrored, down, downMirrored, left, leftMirrored, right, rightMirrored
    }

    /// https://developer.apple.com/documentation/swiftui/image/resizingmode
    public enum ResizingMode: Hashable, Sendable {
        case tile, stretch
    }

    let name: String

    /// https://developer.apple.com/documentation/swiftui/image/init(decorative:scale:orientation:)
    public init(decorative cgImage: CGImage, scale: CGFloat, orientation: Image.Orientation = .up) {
        self.name = "cgImage"
    }

    /// https://developer.apple.com/documentation/swiftui/image/init(_:scale:orientation:label:)
    public init(_ cgImage: CGImage, scale: CGFloat, orientation: Image.Orientation = .up, label: Text) {
        self.name = "cgImage"
    }

    /// https://developer.apple.com/documentation/swiftui/image/init(systemname:)
    public init(systemName: String) {
        self.name = systemName
    }

    /// https://developer.apple.com/documentation/swiftui/image/resizable(capinsets:resizingmode:)
    public func resizable(capInsets: EdgeInsets = EdgeInsets(), resizingMode: Image.ResizingMode = .stretch) -> Image { self }
}

/// https://developer.apple.com/documentation/swiftui/edgeinsets
public struct EdgeInsets: Equatable, Sendable {
    public var top: CGFloat, leading: CGFloat, bottom: CGFloat, trailing: CGFloat
    public init(top: CGFloat = 0, leading: CGFloat = 0, bottom: CGFloat = 0, trailing: CGFloat = 0) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }
}

/// https://developer.apple.com/documentation/swiftui/text
nonisolated public struct Text: View, Equatable {
    public typealias Body = Never
    let content: String
    /// https://developer.apple.com/documentation/swiftui/text/init(_:)-9d1g4
    public init<S: StringProtocol>(_ content: S) { self.content = String(content) }
}

/// https://developer.apple.com/documentation/swiftui/color
nonisolated public struct Color: View, Hashable, Sendable {
    public typealias Body = Never
    let white: Double
    let alpha: Double
    /// https://developer.apple.com/documentation/swiftui/color/init(white:opacity:)
    public init(white: Double, opacity: Double = 1) {
        self.white = white
        self.alpha = opacity
    }
    public static let gray = Color(white: 0.5)
    public static let clear = Color(white: 0, opacity: 0)
    /// https://developer.apple.com/documentation/swiftui/color/opacity(_:)
    public func opacity(_ opacity: Double) -> Color { Color(white: white, opacity: alpha * opacity) }
}

/// https://developer.apple.com/documentation/swiftui/progressview
nonisolated public struct ProgressView<Label: View, CurrentValueLabel: View>: View {
    public typealias Body = Never
    let fraction: Double?
    init(fraction: Double?) { self.fraction = fraction }
}

extension ProgressView where Label == EmptyView, CurrentValueLabel == EmptyView {
    /// https://developer.apple.com/documentation/swiftui/progressview/init()
    nonisolated public init() { self.init(fraction: nil) }
    /// https://developer.apple.com/documentation/swiftui/progressview/init(value:total:)
    nonisolated public init<V: BinaryFloatingPoint>(value: V?, total: V = 1.0) {
        self.init(fraction: value.map { Double($0) / Double(total) })
    }
}

/// https://developer.apple.com/documentation/swiftui/geometryproxy
public struct GeometryProxy {
    /// Read-only, as SwiftUI's is; the stub's own initializer sets it.
    public let size: CGSize
    init(size: CGSize) { self.size = size }
}

/// https://developer.apple.com/documentation/swiftui/geometryreader
nonisolated public struct GeometryReader<Content: View>: View {
    public typealias Body = Never
    public var content: (GeometryProxy) -> Content
    /// https://developer.apple.com/documentation/swiftui/geometryreader/init(content:)
    public init(@ViewBuilder content: @escaping (GeometryProxy) -> Content) { self.content = content }
}

/// https://developer.apple.com/documentation/swiftui/zstack
nonisolated public struct ZStack<Content: View>: View {
    public typealias Body = Never
    let content: Content
    /// https://developer.apple.com/documentation/swiftui/zstack/init(alignment:content:)
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
}

/// https://developer.apple.com/documentation/swiftui/scrollview
nonisolated public struct ScrollView<Content: View>: View {
    public typealias Body = Never
    public var content: Content
    /// https://developer.apple.com/documentation/swiftui/scrollview/init(_:showsindicators:content:)
    public init(@ViewBuilder content: () -> Content) { self.content = content() }
}

/// https://developer.apple.com/documentation/swiftui/griditem
public struct GridItem: Sendable {
    /// https://developer.apple.com/documentation/swiftui/griditem/size-swift.enum
    public enum Size: Sendable {
        case fixed(CGFloat)
        case flexible(minimum: CGFloat = 10, maximum: CGFloat = .infinity)
        case adaptive(minimum: CGFloat, maximum: CGFloat = .infinity)
    }
    public var size: GridItem.Size
    public var spacing: CGFloat?
    /// https://developer.apple.com/documentation/swiftui/griditem/init(_:spacing:alignment:)
    public init(_ size: GridItem.Size = .flexible(), spacing: CGFloat? = nil) {
        self.size = size
        self.spacing = spacing
    }
}

/// https://developer.apple.com/documentation/swiftui/lazyvgrid
nonisolated public struct LazyVGrid<Content: View>: View {
    public typealias Body = Never
    let columns: [GridItem]
    let content: Content
    /// https://developer.apple.com/documentation/swiftui/lazyvgrid/init(columns:alignment:spacing:pinnedviews:content:)
    public init(columns: [GridItem], spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
        self.columns = columns
        self.content = content()
    }
}

/// https://developer.apple.com/documentation/swiftui/foreach
nonisolated public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {
    public var data: Data
    public var content: (Data.Element) -> Content
}

extension ForEach: View where Content: View {
    public typealias Body = Never
}

extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    /// https://developer.apple.com/documentation/swiftui/foreach/init(_:content:)
    nonisolated public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) {
        self.data = data
        self.content = content
    }
}

/// https://developer.apple.com/documentation/swiftui/contentmode
public enum ContentMode: Hashable, CaseIterable, Sendable {
    case fit, fill
}
#endif
