import Foundation
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's environment from AWS (`IMGPROXY_ENV_AWS_SECRET_ID`, `…_SSM_PARAMETERS_PATH`),
/// read from a real Secrets Manager and Systems Manager API (moto) on 127.0.0.1, signed.
@Suite(
    "imagery-server settings from AWS Secrets Manager and Systems Manager, against moto", .timeLimit(.minutes(10)), .serialized,
    .tags(.integration), .offUnderSanitizer,
    .enabled(if: CIRun.runs(needing: MotoServer.binary != nil), "moto_server is not installed (pip install \"moto[server]\"; .ci/run installs it)")
)
struct AWSEnvironmentTests {
    @Test("A secret's KEY=VALUE lines, then the parameters under a path, each over the one before; the process's own values under them")
    func secretThenParameters() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }
        // Given a secret with two versions and parameters under /imgproxy, nested ones included
        _ = try await moto.python("""
            sm = boto3.client("secretsmanager", endpoint_url="\(moto.endpoint)", region_name="eu-west-1",
                              aws_access_key_id="testing", aws_secret_access_key="testing")
            sm.create_secret(Name="imgproxy", SecretString="IMGPROXY_TTL=60\\nIMGPROXY_QUALITY=70\\n")
            sm.put_secret_value(SecretId="imgproxy", SecretString="IMGPROXY_TTL=120\\nIMGPROXY_QUALITY=71\\nIMGPROXY_PATH_PREFIX=/img\\n")
            ssm = boto3.client("ssm", endpoint_url="\(moto.endpoint)", region_name="eu-west-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing")
            ssm.put_parameter(Name="/imgproxy/IMGPROXY_QUALITY", Value="75", Type="String")
            ssm.put_parameter(Name="/imgproxy/IMGPROXY_MAX_CLIENTS", Value="9", Type="SecureString")
            ssm.put_parameter(Name="/elsewhere/IMGPROXY_WORKERS", Value="3", Type="String")
            """)
        let access = [
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL": moto.endpoint,
        ]

        // When the server's settings name the secret and the path
        let loaded = try await ServerSettingsTests.load(environment: access.merging([
            "IMGPROXY_ENV_AWS_SECRET_ID": "imgproxy", "IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH": "/imgproxy",
            "IMGPROXY_TTL": "5",
        ]) { $1 }).configuration

        // Then the secret's current version is read, the parameters over it, and both over the process
        #expect(loaded.cacheControl == "max-age=120, public")
        #expect(loaded.pathPrefix == "/img")
        #expect(loaded.maximumClients == 9, "a SecureString parameter is read decrypted")
        #expect(loaded.concurrentProcessing != 3, "a parameter outside the path was read")
        // And a version stage picks the earlier version
        let previous = try await ServerSettingsTests.load(environment: access.merging([
            "IMGPROXY_ENV_AWS_SECRET_ID": "imgproxy", "IMGPROXY_ENV_AWS_SECRET_VERSION_STAGE": "AWSPREVIOUS",
        ]) { $1 }).configuration
        #expect(previous.cacheControl == "max-age=60, public" && previous.pathPrefix == nil)
    }

    @Test("A missing secret, or missing credentials, stops the start naming the variable, never a credential")
    func refusals() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }
        let access = ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "s3cr3t-key", "AWS_ENDPOINT_URL": moto.endpoint]

        let missing = try #require(await ServerSettingsTests.refusal(environment: access.merging(["IMGPROXY_ENV_AWS_SECRET_ID": "nothing"]) { $1 }))
        #expect(missing.setting == "IMGPROXY_ENV_AWS_SECRET_ID" && missing.reason.contains("AWS Secrets Manager answered") && missing.reason.contains("ResourceNotFoundException"), "\(missing)")
        #expect(!missing.description.contains("s3cr3t-key"))

        let anonymous = try #require(await ServerSettingsTests.refusal(environment: [
            "IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH": "/imgproxy", "AWS_ENDPOINT_URL": moto.endpoint,
        ]))
        #expect(anonymous.setting == "IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH" && anonymous.reason.contains("needs AWS credentials"), "\(anonymous)")
    }
}
