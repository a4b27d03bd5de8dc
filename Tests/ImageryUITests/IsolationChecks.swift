// Compile-time checks of the isolation the UI layer relies on. They hold for SwiftUI itself,
// and the Linux stub must keep them: if a stub declaration drifts (a built-in view or modifier
// made main-actor isolated, a `task` closure made @Sendable), this file stops compiling.
import Imagery
import ImageryUI
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

/// Built-in views and modifiers are `nonisolated`: they can be built off the main actor.
nonisolated func builtInViewsAndModifiersAreNonisolated() -> some View {
    Text("caption")
        .frame(width: 40, height: 40)
        .imagePipeline(.shared)
}

/// `task`'s action is `sending` and not `@Sendable`: it may capture and mutate main-actor state,
/// which an older SDK's `@Sendable` closure would reject.
@MainActor
struct TaskCapturesMainActorState: View {
    let model: ImageModel
    var body: some View {
        Color.clear.task {
            model.priority = .high
            await model.bind(nil)
        }
    }
}
