import Imagery

/// The elements a sanitized document kept, in document order, with what renders more than once:
/// `<use>` (and `<feImage>` of an element) instantiate what they refer to, and an element with
/// a filter runs that filter's primitives. ``measure(limits:)`` counts the elements and filter
/// runs of a render with every reference expanded, without expanding anything.
struct SVGReferenceGraph {
    struct Node {
        /// One past the last node of this element's subtree (its descendants follow it).
        var end: Int
        /// The id a `<use>` or `<feImage>` instantiates.
        var instantiates: String?
        /// The id of the filter this element applies.
        var filter: String?
    }

    /// What one filter costs per pixel of its region, relative to a blur.
    struct FilterCost {
        var primitives = 0
        /// The per-pixel weight of every primitive but `feMorphology`.
        var weight = 0.0
        /// The radius of each `feMorphology`, in user units: its kernel grows with the scale.
        var morphologyRadii: [Double] = []
    }

    /// What a render of the whole document runs.
    struct Measure: Equatable {
        var elements = 0
        var useDepth = 0
        var filterRuns = 0
        var filterWeight = 0.0
        var morphologyRadii: [Double] = []
    }

    private(set) var nodes: [Node] = []
    private(set) var ids: [String: Int] = [:]
    var filters: [String: FilterCost] = [:]

    /// Adds an element whose subtree ends when ``close(_:)`` is called with the index returned.
    mutating func open(id: String?, instantiates: String?, filter: String?) -> Int {
        let index = nodes.count
        nodes.append(Node(end: index + 1, instantiates: instantiates, filter: filter))
        // The first element of an id is the one references reach, as in browsers.
        if let id, ids[id] == nil { ids[id] = index }
        return index
    }

    mutating func close(_ index: Int) {
        nodes[index].end = nodes.count
    }

    /// The elements, deepest `<use>` chain and filter runs of a render of the root, or the
    /// limit that the document breaks.
    func measure(limits: SVGLimits) throws(ImageError) -> Measure {
        guard !nodes.isEmpty else { return Measure() }
        var memo: [Int: Measure] = [:]
        var inProgress: Set<Int> = []
        return try measure(0, depth: 0, limits: limits, memo: &memo, inProgress: &inProgress)
    }

    /// What instantiating the subtree at `index` renders. Recursion follows `<use>` chains only,
    /// which the depth limit bounds; each subtree is walked once per target that holds it.
    private func measure(
        _ index: Int, depth: Int, limits: SVGLimits, memo: inout [Int: Measure], inProgress: inout Set<Int>
    ) throws(ImageError) -> Measure {
        if let known = memo[index] {
            guard depth + known.useDepth <= limits.maximumUseDepth else { throw Self.tooDeep(limits) }
            return known
        }
        guard inProgress.insert(index).inserted else {
            throw .corrupt(.svg, detail: "a <use> refers to an element that contains it")
        }
        var total = Measure()
        for position in index..<nodes[index].end {
            let node = nodes[position]
            total.elements += 1
            if let filter = node.filter {
                let cost = filters[filter] ?? FilterCost(primitives: 1, weight: 1)
                total.filterRuns += cost.primitives
                total.filterWeight += cost.weight
                total.morphologyRadii += cost.morphologyRadii
            }
            if let target = node.instantiates.flatMap({ ids[$0] }) {
                guard depth < limits.maximumUseDepth else { throw Self.tooDeep(limits) }
                let copy = try measure(target, depth: depth + 1, limits: limits, memo: &memo, inProgress: &inProgress)
                total.elements += copy.elements
                total.useDepth = max(total.useDepth, copy.useDepth + 1)
                total.filterRuns += copy.filterRuns
                total.filterWeight += copy.filterWeight
                total.morphologyRadii += copy.morphologyRadii
            }
            // Stop counting once over: a nested-<use> bomb would overflow any counter.
            if total.elements > limits.maximumElementCount {
                throw .corrupt(.svg, detail: "more than \(limits.maximumElementCount) elements once <use> references are expanded")
            }
            if total.filterRuns > limits.maximumFilterCount {
                throw .corrupt(.svg, detail: "more than \(limits.maximumFilterCount) filter primitives to run")
            }
        }
        inProgress.remove(index)
        memo[index] = total
        return total
    }

    private static func tooDeep(_ limits: SVGLimits) -> ImageError {
        .corrupt(.svg, detail: "<use> elements nest more than \(limits.maximumUseDepth) deep")
    }
}
