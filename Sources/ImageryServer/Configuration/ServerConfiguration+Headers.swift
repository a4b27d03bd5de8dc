extension ServerConfiguration {
    /// How answers' caching and validation headers are written.
    var headerPolicy: ResponseHeaderPolicy {
        var policy = ResponseHeaderPolicy(cacheControl: cacheControl)
        policy.usesETag = useETag
        policy.etagBuster = etagBuster
        policy.usesLastModified = useLastModified
        policy.lastModifiedBuster = lastModifiedBuster.flatMap(HTTPDate.parseRFC3339)
        policy.passesCacheControlThrough = cacheControlPassthrough
        policy.sendsDebugHeaders = enableDebugHeaders
        return policy
    }

    /// Why `value` is not an RFC 3339 time, or `nil`.
    static func rfc3339Problem(_ value: String) -> String? {
        value.isEmpty || HTTPDate.parseRFC3339(value) != nil ? nil : "must be an RFC 3339 time, such as 2024-05-01T12:00:00Z"
    }
}
