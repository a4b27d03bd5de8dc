/// Runs `operation` until `deadline`: its result, or `timeout` once the deadline passes (the
/// operation is then cancelled). The one deadline of the loaders: retries' total deadline and
/// each HTTP download's.
///
/// ```swift
/// let bytes = try await withDeadline(.now + .seconds(5), timeout: .timedOut(source: name)) {
///     try await loader.loadData(for: source)
/// }
/// ```
package func withDeadline<Result: Sendable>(
    _ deadline: ContinuousClock.Instant,
    timeout: DataLoadingError,
    _ operation: @escaping @Sendable () async throws(DataLoadingError) -> Result
) async throws(DataLoadingError) -> Result {
    do {
        return try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw timeout
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    } catch let error as DataLoadingError {
        throw error
    } catch {
        throw .cancelled
    }
}
