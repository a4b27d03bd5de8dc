import Foundation
import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryImgproxy
import Logging

extension ServerConfiguration {
    /// The signer for `keyHex` and `saltHex`; `nil` without a key.
    func makeSigner() throws(ServerSetupError) -> ImgproxySigner? {
        guard let keyHex else { return nil }
        do throws(ImgproxyError) {
            return try ImgproxySigner(
                keysHex: keyHex, saltsHex: saltHex ?? "", signatureSize: signatureSize, trusted: Set(trustedSignatures)
            )
        } catch {
            throw .invalidKey(error.message)
        }
    }

    /// Where `s3://` sources are read, with `--use-s3`; `nil` without it.
    ///
    /// - Throws: ``ServerSetupError/s3(_:)`` with `--use-s3` but no credentials in the environment.
    func s3() throws(ServerSetupError) -> S3Configuration? {
        guard useS3 else { return nil }
        var store = try s3Store(for: "--use-s3")
        if s3UsesDecryptionClient { store.decryption = try s3Decryption() }
        return store
    }

    /// Decryption for `s3://` sources only: result storage reads back what it wrote, in the
    /// clear. KMS is in ``s3Region``, at `AWS_ENDPOINT_URL_KMS`, else `AWS_ENDPOINT_URL`, else
    /// AWS's, as STS is found for ``assumeS3Role()``; each call may take ``upstreamTimeout``.
    private func s3Decryption() throws(ServerSetupError) -> S3ClientSideDecryption {
        guard let endpoint = AWSJSONService.keyManagement.endpoint(region: s3Region, environment: awsEndpointVariables), endpoint.host != nil else {
            throw .setting("s3-use-decryption-client", "the KMS endpoint AWS_ENDPOINT_URL_KMS or AWS_ENDPOINT_URL names is not a URL")
        }
        return S3ClientSideDecryption(keyService: endpoint, region: s3Region, timeout: upstreamTimeout)
    }

    /// The S3-compatible store that `s3://` sources and result storage share: its access
    /// points, and the assumed role's credentials when there is one.
    private func s3Store(for setting: String) throws(ServerSetupError) -> S3Configuration {
        guard let s3Credentials else { throw .s3("\(setting) needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment") }
        var store = S3Configuration(
            credentials: s3Credentials, region: s3Region, endpoint: s3Endpoint.flatMap(URL.init(string:)), usesPathStyle: s3UsesPathStyle
        )
        do throws(S3AccessPoint.Refusal) {
            store.accessPoints = try S3AccessPoint.list(s3AccessPoints ?? "")
        } catch {
            throw .setting("s3-access-points", error.description)
        }
        if s3AssumeRoleARN != nil {
            guard let s3AssumedRole else { throw .setting("s3-assume-role-arn", "the role is assumed by assumeS3Role() before the server is made") }
            store.credentialsProvider = s3AssumedRole
        }
        return store
    }

    /// Assumes ``s3AssumeRoleARN`` through STS once, before the server is made, when S3 is
    /// used: a role that cannot be assumed (a wrong ARN, a trust policy that refuses the
    /// external ID or the credentials) stops the start instead of failing every request.
    /// STS is in ``s3Region``, at `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL`, else AWS's.
    ///
    /// ```swift
    /// var configuration = loaded.configuration
    /// try await configuration.assumeS3Role()   // then ServerApplication(configuration:)
    /// ```
    ///
    /// - Throws: ``ServerSetupError/setting(_:_:)`` naming `s3-assume-role-arn`, with STS's
    ///   answer (never a credential).
    package mutating func assumeS3Role() async throws(ServerSetupError) {
        guard let arn = s3AssumeRoleARN, useS3 || s3ResultStorage != nil, s3AssumedRole == nil else { return }
        guard let s3Credentials else {
            throw .setting("s3-assume-role-arn", "needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment to assume the role with")
        }
        guard let endpoint = AWSSecurityTokenService.endpoint(region: s3Region, environment: awsEndpointVariables), endpoint.host != nil else {
            throw .setting("s3-assume-role-arn", "the STS endpoint AWS_ENDPOINT_URL_STS or AWS_ENDPOINT_URL names is not a URL")
        }
        let role = AWSAssumedRoleCredentials(
            role: AWSSecurityTokenService.Role(arn: arn, externalID: s3AssumeRoleExternalID),
            service: AWSSecurityTokenService(region: s3Region, endpoint: endpoint), base: s3Credentials
        )
        do throws(AWSAssumedRoleCredentials.Failure) {
            _ = try await role.credentials()
        } catch {
            throw .setting("s3-assume-role-arn", error.description)
        }
        s3AssumedRole = role
    }

    /// Result storage's store, bucket and key prefix (empty, or ending in `/`), with
    /// `--s3-result-storage`; `nil` without it.
    ///
    /// - Throws: ``ServerSetupError/s3(_:)`` for a malformed value or no credentials.
    func resultStorage() throws(ServerSetupError) -> (store: S3Configuration, bucket: String, prefix: String)? {
        guard let s3ResultStorage else { return nil }
        guard let parts = Self.resultStorageParts(s3ResultStorage) else { throw .s3("--s3-result-storage: \(s3ResultStorage) is not bucket[/prefix]") }
        return (try s3Store(for: "--s3-result-storage"), parts.bucket, parts.prefix)
    }

    /// `bucket[/prefix]` split, the prefix given a trailing `/`; `nil` for a bucket name S3
    /// does not allow, or a prefix with a `.` or `..` segment (every key stored is the prefix
    /// and a SHA-256 in hex, so the prefix is the only part that could be one).
    static func resultStorageParts(_ value: String) -> (bucket: String, prefix: String)? {
        let parts = value.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = String(parts[0])
        guard S3Location.isValidBucket(bucket) else { return nil }
        let prefix = parts.count > 1 ? String(parts[1].drop { $0 == "/" }) : ""
        guard S3Location.isSafeKey(prefix) else { return nil }
        return (bucket, prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/")
    }

    /// The origin loader's limits, and the SSRF guard on every hop.
    var loading: HTTPClientDataLoader.Configuration {
        var loading = HTTPClientDataLoader.Configuration()
        loading.maximumResponseSize = maximumSourceBytes
        loading.totalDeadline = upstreamTimeout
        loading.idleTimeout = upstreamTimeout
        loading.maximumRedirects = maximumRedirects
        loading.additionalHeaders = ["User-Agent": userAgent]
        loading.accept = HTTPClientDataLoader.Configuration.accept(ImageDecoder.supportedFormats)
        let policy = sources
        loading.hopCheck = { url throws(DataLoadingError) in try policy.checkHop(url) }
        loading.connectionGuard = policy.connectionGuard
        loading.s3 = try? s3()
        // imgproxy's cookie jar sends scoped cookies to their host alone, and all of them everywhere with _ALL.
        loading.keepsCredentialsAcrossHosts = cookiePassthrough.passesAll
        loading.propagatesTraceContext = telemetry.propagatesExternal
        loading.keepAliveTimeout = clientKeepAliveTimeout
        loading.verifiesCertificates = !ignoreSSLVerification
        return loading
    }

    /// The pipeline behind the server: its decodes and downloads bounded, its memory cache
    /// sized for a server whose answers are already in the response cache.
    func pipeline(loader: any DataLoading, logger: Logger) -> ImagePipeline.Configuration {
        var pipeline = ImagePipeline.Configuration.standard
        var retries = RetryPolicy()
        retries.deadline = upstreamTimeout   // the whole load, retries included
        pipeline.dataLoader = RetryingDataLoader(wrapping: loader, policy: retries)
        pipeline.maximumConcurrentDecodes = concurrentProcessing
        pipeline.maximumConcurrentDownloads = concurrentDownloads
        pipeline.decodingPixelBudget = decodingPixelBudget
        pipeline.draftHeadroom = draftHeadroom
        pipeline.reducesWhileDecoding = !disableShrinkOnLoad
        pipeline.resizesInLinearLight = useLinearColorspace
        pipeline.imageCache = ImageCache(costLimit: imageCacheBytes)
        if svg.unlimited { pipeline.decoder = ImageDecoder(svgLimits: svg.limits) }
        pipeline.logger = logger
        return pipeline
    }

}
