/// A least-recently-used map with per-entry cost and expiry: a dictionary of slot indices
/// plus a doubly linked list threaded through an array of plain-data links. Keys, values and
/// links live in separate arrays so that a hit reads only the value it returns and moves
/// plain integers; it never copies (and so never retains) a whole entry.
struct LRUStorage<Key: Hashable, Value> {
    private struct Link {
        var previous: Int
        var next: Int
        var cost: Int
        var expiry: ContinuousClock.Instant?
    }

    private var index: [Key: Int] = [:]
    private var keys: [Key?] = []
    private var values: [Value?] = []
    private var links: [Link] = []
    private var free: [Int] = []
    /// Most recently used; -1 when empty.
    private var head = -1
    /// Least recently used; -1 when empty.
    private var tail = -1
    private(set) var totalCost = 0

    var count: Int { index.count }

    mutating func value(for key: Key, expiringBefore now: ContinuousClock.Instant?) -> Value? {
        guard let slot = index[key] else { return nil }
        if let now, let expiry = links[slot].expiry, expiry <= now {
            removeSlot(slot)
            return nil
        }
        moveToFront(slot)
        return values[slot]
    }

    mutating func insert(_ value: Value, for key: Key, cost: Int, expiry: ContinuousClock.Instant?) {
        if let existing = index[key] { removeSlot(existing) }
        let link = Link(previous: -1, next: head, cost: cost, expiry: expiry)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            keys[slot] = key
            values[slot] = value
            links[slot] = link
        } else {
            slot = links.count
            keys.append(key)
            values.append(value)
            links.append(link)
        }
        if head >= 0 { links[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
        totalCost += cost
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        let value = values[slot]
        removeSlot(slot)
        return value
    }

    /// Evicts least recently used entries until both limits hold; returns how many left.
    @discardableResult
    mutating func trim(costLimit: Int, countLimit: Int) -> Int {
        var evicted = 0
        while tail >= 0, totalCost > costLimit || index.count > countLimit {
            removeSlot(tail)
            evicted += 1
        }
        return evicted
    }

    mutating func removeAll() {
        self = LRUStorage()
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        links[slot].previous = -1
        links[slot].next = head
        if head >= 0 { links[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = links[slot].previous, next = links[slot].next
        if previous >= 0 { links[previous].next = next } else { head = next }
        if next >= 0 { links[next].previous = previous } else { tail = previous }
    }

    private mutating func removeSlot(_ slot: Int) {
        unlink(slot)
        if let key = keys[slot] { index[key] = nil }
        totalCost -= links[slot].cost
        keys[slot] = nil
        values[slot] = nil
        free.append(slot)
    }
}

extension LRUStorage: Sendable where Key: Sendable, Value: Sendable {}
