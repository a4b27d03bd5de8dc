#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: the lock for every piece of shared mutable state outside
/// the graph's actor (task state, the memory cache, the HTTP delegate's transfers).
///
/// Not `Synchronization.Mutex`: on Linux its futex-based lock is invisible to
/// ThreadSanitizer, which then reports every access under it as a race (checked with a
/// four-thread counter), so a TSan run of the suite could never be clean. TSan intercepts
/// pthread mutexes, and an uncontended pthread lock costs no more (about 4 ns against 10 ns
/// for `Mutex` on this machine).
///
/// ```swift
/// let counts = Locked([String: Int]())
/// counts.withLock { $0["hits", default: 0] += 1 }
/// ```
// @unchecked Sendable: `value` is only ever read or written between pthread_mutex_lock and
// pthread_mutex_unlock on `mutex`, and `Value` itself is required to be Sendable.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not call back into this lock.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
