import Imagery
import NIOCore

extension TimeAmount {
    /// `duration` as NIO counts time, to the nanosecond.
    init(_ duration: Duration) {
        self = .nanoseconds(Int64(duration.seconds * 1e9))
    }
}
