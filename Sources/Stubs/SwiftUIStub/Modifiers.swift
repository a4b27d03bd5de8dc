#if os(Linux)
import CoreGraphicsStub

extension View {
    // The strictest of the SDKs the package allows: before SDK 26.4 the action is a
    // `@Sendable` closure and there is no `name:`, `file:` or `line:` (26.4 loosened it to
    // `sending @isolated(any)`), so code that type-checks here compiles against both. The pages
    // omit underscored attributes, but SwiftUI's `task` action carries `@_inheritActorContext`
    // (its closure runs on the view's main actor), as Swift's own `Task` does.
    /// https://developer.apple.com/documentation/swiftui/view/task(priority:_:)
    nonisolated public func task(
        priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: @escaping @Sendable () async -> Void
    ) -> some View {
        stubModified()
    }

    /// https://developer.apple.com/documentation/swiftui/view/task(id:priority:_:)
    nonisolated public func task<T: Equatable>(
        id value: T,
        priority: TaskPriority = .userInitiated,
        @_inheritActorContext _ action: @escaping @Sendable () async -> Void
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
