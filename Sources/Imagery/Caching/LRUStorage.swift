/// A least-recently-used map with per-entry cost and expiry: a dictionary of slot indices
/// plus a doubly linked list threaded through arrays, so a hit moves an entry to the front
/// with no allocation and no reference counting of list nodes.
struct LRUStorage<Key: Hashable, Value> {
    private struct Slot {
        var key: Key
        var value: Value
        var cost: Int
        var expiry: ContinuousClock.Instant?
        var previous: Int
        var next: Int
    }

    private var index: [Key: Int] = [:]
    private var slots: [Slot?] = []
    private var free: [Int] = []
    /// Most recently used; -1 when empty.
    private var head = -1
    /// Least recently used; -1 when empty.
    private var tail = -1
    private(set) var totalCost = 0

    var count: Int { index.count }

    mutating func value(for key: Key, expiringBefore now: ContinuousClock.Instant?) -> Value? {
        guard let slot = index[key] else { return nil }
        if let now, let expiry = slots[slot]!.expiry, expiry <= now {
            removeSlot(slot)
            return nil
        }
        moveToFront(slot)
        return slots[slot]!.value
    }

    mutating func insert(_ value: Value, for key: Key, cost: Int, expiry: ContinuousClock.Instant?) {
        if let existing = index[key] { removeSlot(existing) }
        let slot = Slot(key: key, value: value, cost: cost, expiry: expiry, previous: -1, next: head)
        let position: Int
        if let reused = free.popLast() {
            slots[reused] = slot
            position = reused
        } else {
            slots.append(slot)
            position = slots.count - 1
        }
        if head >= 0 { slots[head]!.previous = position }
        head = position
        if tail < 0 { tail = position }
        index[key] = position
        totalCost += cost
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        let value = slots[slot]!.value
        removeSlot(slot)
        return value
    }

    /// Evicts least recently used entries until both limits hold.
    mutating func trim(costLimit: Int, countLimit: Int) {
        while tail >= 0, totalCost > costLimit || index.count > countLimit {
            removeSlot(tail)
        }
    }

    mutating func removeAll() {
        self = LRUStorage()
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        slots[slot]!.previous = -1
        slots[slot]!.next = head
        if head >= 0 { slots[head]!.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = slots[slot]!.previous, next = slots[slot]!.next
        if previous >= 0 { slots[previous]!.next = next } else { head = next }
        if next >= 0 { slots[next]!.previous = previous } else { tail = previous }
    }

    private mutating func removeSlot(_ slot: Int) {
        unlink(slot)
        let removed = slots[slot]!
        index[removed.key] = nil
        totalCost -= removed.cost
        slots[slot] = nil
        free.append(slot)
    }
}
