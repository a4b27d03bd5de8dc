import Imagery
import ImageryUI
import Observation

/// Renders like SwiftUI does: evaluates `render` once for the first frame, and again on the
/// main actor after each change to what it read (changes made in one turn collapse into one
/// frame). Each evaluation is a frame.
@MainActor @Observable
final class FrameRecorder {
    private(set) var frames: [ImagePhase] = []
    private let render: @MainActor () -> ImagePhase

    init(_ render: @escaping @MainActor () -> ImagePhase) {
        self.render = render
        draw()
    }

    private func draw() {
        let phase = withObservationTracking { render() } onChange: { [weak self] in
            Task { @MainActor in self?.draw() }
        }
        frames.append(phase)
    }

    /// The frames as short labels, e.g. `["empty", "loading", "loading 50%", "success source"]`.
    var labels: [String] { frames.map(\.label) }
}

extension ImagePhase {
    var label: String {
        switch self {
        case .empty: "empty"
        case let .loading(progress, preview):
            (progress?.fraction.map { "loading \(Int($0 * 100))%" } ?? "loading") + (preview == nil ? "" : " with preview")
        case let .success(response): "success \(response.origin)"
        case let .failure(error): "failure \(error.kind)"
        }
    }
}

/// Returns once `condition` holds for `model.phase`, waking on each change to whatever it reads
/// (the phase, a recorder's frames) rather than polling, or once the test is cancelled: a
/// suite's time limit then ends the test with its failed expectations instead of holding the
/// run. (Waking on the phase alone hung CI twice: a condition on the recorder's frames was
/// checked before the recorder drew the last change, and the phase never changed again.)
@MainActor
func waitUntil(_ model: ImageModel, _ condition: (ImagePhase) -> Bool) async {
    while !condition(model.phase), !Task.isCancelled {
        // The change and the cancellation may both come: whichever is first resumes.
        let waiter = Locked<CheckedContinuation<Void, Never>?>(nil)
        let resume = { @Sendable in waiter.withLock { held in defer { held = nil }; return held }?.resume() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.withLock { $0 = continuation }
                withObservationTracking { _ = condition(model.phase) } onChange: { resume() }
                if Task.isCancelled { resume() }
            }
        } onCancel: {
            resume()
        }
    }
}
