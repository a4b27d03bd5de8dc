import Imagery

extension ImageModel {
    /// What a view does with its load when it leaves the screen.
    ///
    /// ```swift
    /// AsyncPhoto(request) { phase in … }
    ///     .disappearBehavior(.lowerPriority(.veryLow))   // keep it, behind visible cells
    /// ```
    public enum DisappearBehavior: Sendable, Hashable {
        /// Cancel this view's interest: the download and decode stop unless another view waits
        /// for them, and the phase goes back to ``ImagePhase/empty`` until the view reappears.
        /// The default, like `AsyncImage`.
        case cancel
        /// Keep loading at `priority`, so scrolling back finds the image done or under way;
        /// the request's own priority comes back when the view reappears.
        case lowerPriority(ImageRequest.Priority)
        /// Keep loading at the same priority.
        case keepLoading
    }
}
