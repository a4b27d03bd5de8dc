extension Result {
    /// The failure, if there is one: for code that reports an outcome without delivering it
    /// (a span's status).
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
