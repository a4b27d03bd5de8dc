import Imagery
import ImageryUI
import Observation

/// The view an ``ImageLoadingController`` drives in tests: it records what it was told to
/// show, as short labels, and keeps the last image. Observable, so `waitUntil` wakes on it.
@MainActor @Observable
final class RecordingDisplay: ImageDisplaying {
    private(set) var entries: [String] = []
    private(set) var lastImage: Bitmap?

    func display(_ content: ImageViewContent) {
        switch content {
        case .empty:
            entries.append("empty")
        case let .placeholder(preview):
            entries.append(preview == nil ? "placeholder" : "placeholder preview")
        case let .image(bitmap, transition):
            lastImage = bitmap
            entries.append("image \(bitmap.width)x\(bitmap.height)" + (transition ? " fade" : ""))
        case let .failure(error):
            entries.append("failure \(error.kind)")
        }
    }
}
