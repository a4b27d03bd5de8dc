import Imagery
import Observation

/// Loads images into one view that is reused, as a table or collection view cell's is: what
/// Imagery's `UIImageView` extension attaches to each image view, with no UIKit in it, so its
/// behaviour is tested on Linux.
///
/// - A memory-cache hit is shown within ``load(_:)``, in the same frame, with no placeholder.
/// - Otherwise the view shows its placeholder (the request's placeholder hash when it has one)
///   until the image arrives, which then fades in; a failure shows the failure image.
/// - Loading another request, or ``prepareForReuse()``, cancels the load in flight, and a
///   result that arrives late never reaches the view.
/// - An animated image plays in the view (see ``ImageModel/currentFrame``).
///
/// ```swift
/// let controller = ImageLoadingController(display: target)
/// controller.load(ImageRequest(url: url, resize: .fill(width: 160, height: 160)))
/// // …the cell is reused:
/// controller.prepareForReuse()
/// ```
@MainActor
@Observable
public final class ImageLoadingController {
    /// The model that loads; its phase is what the view shows.
    @ObservationIgnored public let model: ImageModel
    /// Where the content goes.
    @ObservationIgnored public let display: any ImageDisplaying
    /// What the view was last given to show (observed): `nil` before the first load.
    public private(set) var content: ImageViewContent?

    /// What the view shows now, to skip redrawing it for progress reports.
    @ObservationIgnored private var shown: Shown?
    /// Bumped by every ``load(_:)``, so two loads in a row each show their own placeholder.
    @ObservationIgnored private var loads = 0
    @ObservationIgnored private var isObserving = false

    private enum Shown: Equatable {
        case empty
        case placeholder(load: Int, previews: Int)
        case image(load: Int, frame: Int)
        case failure(load: Int)
    }

    /// A controller that shows `model`'s loads in `display`.
    public init(display: any ImageDisplaying, model: ImageModel = ImageModel()) {
        self.display = display
        self.model = model
    }

    /// The request last loaded, or `nil`.
    public var request: ImageRequest? { model.request }

    /// Shows `request`'s image in the view: a memory-cache hit at once, otherwise the
    /// placeholder until it arrives. The load in flight for an earlier request is cancelled;
    /// the same image again (a `reloadData`) keeps its load, or its picture, as it is. `nil`
    /// empties the view.
    public func load(_ request: ImageRequest?) {
        guard model.loadIfNeeded(request) else { return }
        loads += 1
        render()
    }

    /// Cancels the load in flight and empties the view: call it from the cell's
    /// `prepareForReuse()`.
    public func prepareForReuse() {
        load(nil)
    }

    /// Draws the model's phase, if it changed, and watches for the next change.
    private func render() {
        defer { observe() }
        let next: Shown
        let content: ImageViewContent
        switch model.phase {
        case .empty:
            next = .empty
            content = .empty
        case let .loading(_, preview):
            // A new progressive preview is a new placeholder to draw; progress alone is not.
            next = .placeholder(load: loads, previews: model.previewsShown)
            content = .placeholder(preview: preview)
        case let .success(response):
            next = .image(load: loads, frame: model.framesShown)
            let replacesPlaceholder = if case .placeholder? = shown { true } else { false }
            content = .image(model.currentFrame ?? response.image, transition: replacesPlaceholder && response.origin != .memory)
        case let .failure(error):
            next = .failure(load: loads)
            content = .failure(error)
        }
        guard next != shown else { return }
        shown = next
        display.display(content)
        self.content = content
    }

    /// Renders again after the next change to what the view shows: the phase or the frame.
    private func observe() {
        guard !isObserving else { return }
        isObserving = true
        withObservationTracking {
            _ = model.phase
            _ = model.currentFrame
        } onChange: { [weak self] in
            // Called before the change is made: draw on the next turn, once it is.
            Task { @MainActor in
                self?.isObserving = false
                self?.render()
            }
        }
    }
}
