extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval` and SQLite's REAL timestamps use.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
