import Foundation
import ImageryHTTPClient

extension ServerConfiguration {
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
    func s3Store(for setting: String) throws(ServerSetupError) -> S3Configuration {
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
            // The name CloudTrail shows beside each request the role signs: the server's.
            role: AWSSecurityTokenService.Role(arn: arn, externalID: s3AssumeRoleExternalID, sessionName: "imagery-server"),
            service: AWSSecurityTokenService(region: s3Region, endpoint: endpoint), base: s3Credentials
        )
        do throws(AWSAssumedRoleCredentials.Failure) {
            _ = try await role.credentials()
        } catch {
            throw .setting("s3-assume-role-arn", error.description)
        }
        s3AssumedRole = role
    }
}
