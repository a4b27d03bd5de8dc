import Imagery

// Playing the animation of the response shown: the model owns one AnimationPlayer, made when
// the animation first plays, and exposes its frame as `currentFrame`.
extension ImageModel {
    /// The most decoded frames an animation played from an `AnimationStream` holds at once
    /// (the one on show counted): a stream with more is decoded as it plays, a window ahead.
    /// Default: 16.
    nonisolated public static let defaultFrameBudget = 16

    /// Whether the view is on screen. ``bind(_:in:onDisappear:)`` keeps it up to date for
    /// SwiftUI; a UIKit shell sets it as its view enters and leaves a window. An animation
    /// plays only while it is `true`. Default: `true`.
    public var isVisible: Bool {
        get { playback.isVisible }
        set { playback.isVisible = newValue; updatePlayback() }
    }

    /// Whether the system asks to reduce motion: an animation then shows its first frame and
    /// does not play. Views set it from the accessibility setting. Default: `false`.
    public var reducesMotion: Bool {
        get { playback.reducesMotion }
        set { playback.reducesMotion = newValue; updatePlayback() }
    }

    /// Whether animations play at all; `false` pauses one on the frame on show (an app's own
    /// pause button). Default: `true`.
    ///
    /// ```swift
    /// model.playsAnimations.toggle()
    /// ```
    public var playsAnimations: Bool {
        get { playback.playsAnimations }
        set { playback.playsAnimations = newValue; updatePlayback() }
    }

    /// See ``defaultFrameBudget``. A change applies to the next animation.
    public var frameBudget: Int {
        get { playback.frameBudget }
        set { playback.frameBudget = max(2, newValue) }
    }

    /// Whether an animation is playing now.
    public var isAnimating: Bool { player?.isPlaying ?? false }

    /// Plays or pauses the animation of the response shown, as the switches above say. Not
    /// while a new load is in flight: the image kept meanwhile stays still.
    func updatePlayback() {
        let settings = playback
        guard let response = phase.response, response.isAnimated, !isLoading else { return }
        if settings.isVisible, settings.playsAnimations, !settings.reducesMotion {
            if player == nil { player = makePlayer(for: response, budget: settings.frameBudget) }
            player?.play()
        } else {
            player?.pause()
            // Reduce Motion shows the first frame, not wherever playback was.
            if settings.reducesMotion { showPoster() }
        }
    }

    private func show(_ frame: Bitmap) {
        framesShown &+= 1
        currentFrame = frame
    }

    /// Back to the response's own image: an animation's first frame.
    private func showPoster() {
        guard currentFrame != nil else { return }
        framesShown &+= 1
        currentFrame = nil
    }

    func stopPlayback() {
        player?.stop()
        player = nil
        showPoster()
    }

    private func makePlayer(for response: ImageResponse, budget: Int) -> AnimationPlayer? {
        let supply: AnimationFrameSupply
        let loopCount: Int
        if let animation = response.animation {
            supply = AnimationFrameSupply(frames: animation.frames)
            loopCount = animation.loopCount
        } else if let stream = response.animationStream {
            supply = AnimationFrameSupply(stream: stream, budget: budget)
            loopCount = stream.loopCount
        } else {
            return nil
        }
        return AnimationPlayer(supply: supply, loopCount: loopCount, clock: playbackClock) { [weak self] frame in
            self?.show(frame.image)
        }
    }
}

extension ImageModel {
    /// The switches playback follows, kept together and unobserved.
    struct Playback {
        var isVisible = true
        var reducesMotion = false
        var playsAnimations = true
        var frameBudget = ImageModel.defaultFrameBudget
    }
}
