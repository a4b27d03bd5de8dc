/// The one isolation domain of the task graph: coalescing tables, subscriptions, priorities,
/// queues and cancellation all live here and are plain synchronous calls to each other.
/// Loading, decoding and resampling run off it; a memory-cache hit never comes here.
@globalActor
actor PipelineActor {
    static let shared = PipelineActor()
}
