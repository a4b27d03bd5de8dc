#if os(Linux)
import CoreGraphicsStub

extension View {
    // The documentation pages omit underscored attributes, but SwiftUI's `task` action carries
    // `@_inheritActorContext` (its closure runs on the view's main actor), and Swift's own `Task`
    // does the same. Without it the stub would demand `await` where SwiftUI warns about one.
    /// https://developer.apple.com/documentation/swiftui/view/task(name:priority:file:line:_:)
    nonisolated public func task(
        name: String? = nil,
        priority: TaskPriority = .userInitiated,
        file: String = #fileID,
        line: Int = #line,
        @_inheritActorContext _ action: sending @escaping @isolated(any) () async -> Void
    ) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/task(id:name:priority:file:line:_:)
    nonisolated public func task<T: Equatable>(
        id value: T,
        name: String? = nil,
        priority: TaskPriority = .userInitiated,
        file: String = #fileID,
        line: Int = #line,
        @_inheritActorContext _ action: sending @escaping @isolated(any) () async -> Void
    ) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/onappear(perform:)
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/ondisappear(perform:)
    nonisolated public func onDisappear(perform action: (() -> Void)? = nil) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/environment(_:_:)
    nonisolated public func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/aspectratio(_:contentmode:)-771ow
    nonisolated public func aspectRatio(_ aspectRatio: CGFloat? = nil, contentMode: ContentMode) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/frame(width:height:alignment:)
    nonisolated public func frame(width: CGFloat? = nil, height: CGFloat? = nil) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/clipped(antialiased:)
    nonisolated public func clipped(antialiased: Bool = false) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/overlay(alignment:content:)
    nonisolated public func overlay<V: View>(@ViewBuilder content: () -> V) -> some View {
        stubModified()
    }
}
#endif
