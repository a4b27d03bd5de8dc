// Linux stand-in for the parts of SwiftUI that Imagery uses; see Sources/Stubs/README.md.
// Declarations follow developer.apple.com/documentation/swiftui; bodies are placeholders.
#if os(Linux)
@_exported import CoreGraphicsStub

/// https://developer.apple.com/documentation/swiftui/view
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public typealias Body = Never
}

extension View where Body == Never {
    /// Built-in views have no body; SwiftUI renders them itself.
    public var body: Never { fatalError("a built-in view has no body") }
}

/// https://developer.apple.com/documentation/swiftui/viewbuilder
@resultBuilder
public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        TupleView((repeat each content))
    }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> {
        _ConditionalContent(storage: .trueContent(first))
    }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> {
        _ConditionalContent(storage: .falseContent(second))
    }
}

/// https://developer.apple.com/documentation/swiftui/emptyview
nonisolated public struct EmptyView: View {
    public typealias Body = Never
    public init() {}
}

/// https://developer.apple.com/documentation/swiftui/tupleview
nonisolated public struct TupleView<T>: View {
    public typealias Body = Never
    public var value: T
    public init(_ value: T) { self.value = value }
}

/// https://developer.apple.com/documentation/swiftui/_conditionalcontent
nonisolated public struct _ConditionalContent<TrueContent, FalseContent>: View where TrueContent: View, FalseContent: View {
    public typealias Body = Never
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    let storage: Storage
}

extension Optional: View where Wrapped: View {
    public typealias Body = Never
}

/// https://developer.apple.com/documentation/swiftui/viewmodifier
@MainActor @preconcurrency
public protocol ViewModifier {}

/// https://developer.apple.com/documentation/swiftui/modifiedcontent
nonisolated public struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
    public init(content: Content, modifier: Modifier) {
        self.content = content
        self.modifier = modifier
    }
}

extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
    public typealias Body = Never
}

/// What the stub's modifiers return: SwiftUI hides its own modifier types behind `some View`.
nonisolated public struct _StubModifier: ViewModifier {
    public init() {}
}

extension View {
    nonisolated func stubModified() -> ModifiedContent<Self, _StubModifier> {
        ModifiedContent(content: self, modifier: _StubModifier())
    }
}
#endif
