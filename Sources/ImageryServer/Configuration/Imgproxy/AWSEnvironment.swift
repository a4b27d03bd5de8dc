import Foundation
import ImageryHTTPClient

/// imgproxy's environment from AWS, read before the environment as imgproxy reads it: the
/// Secrets Manager secret `IMGPROXY_ENV_AWS_SECRET_ID` (its text in the environment file's
/// syntax), then every parameter under the Systems Manager path
/// `IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH` (`/imgproxy/IMGPROXY_KEY`, or
/// `/imgproxy/IMGPROXY_CLOUD_WATCH/NAMESPACE` as `IMGPROXY_CLOUD_WATCH_NAMESPACE`), each over
/// the process's own values and the one before it; the environment file comes last.
///
/// Signed with the `AWS_*` credentials of the environment, in `…_REGION`, else `AWS_REGION`,
/// else imgproxy's `us-west-1`; at AWS's endpoint, or where `AWS_ENDPOINT_URL_SECRETS_MANAGER`,
/// `AWS_ENDPOINT_URL_SSM` or `AWS_ENDPOINT_URL` say, as AWS's SDKs (and so imgproxy) read them.
enum AWSEnvironment {
    /// `environment` with the secret and the parameters it names (if any) read over it.
    ///
    /// - Throws: ``SettingError`` naming the variable when the store refuses, fails or cannot be
    ///   reached, the credentials are missing, or the secret's text does not parse.
    static func merged(into environment: [String: String]) async throws(SettingError) -> [String: String] {
        var merged = environment
        if let (variable, id) = try EnvironmentFile.setting("ENV_AWS_SECRET_ID", in: environment) {
            let versionID = try EnvironmentFile.setting("ENV_AWS_SECRET_VERSION_ID", in: environment)?.value
            let stage = try EnvironmentFile.setting("ENV_AWS_SECRET_VERSION_STAGE", in: environment)?.value
            let (region, endpoint, credentials) = try access(.secretsManager, regionSetting: "ENV_AWS_SECRET_REGION", for: variable, in: environment)
            let text: String?
            do {
                text = try await AWSJSONService.secretsManager.secretString(
                    id: id, versionID: versionID, versionStage: stage, region: region, endpoint: endpoint, credentials: credentials
                )
            } catch {
                throw SettingError(setting: variable, source: "the environment (\(variable))", reason: "AWS Secrets Manager \(error)")
            }
            if let text {
                do throws(SettingError.Reason) {
                    merged.merge(try EnvironmentFile.parse(text, environment: merged)) { $1 }
                } catch {
                    throw SettingError(setting: variable, source: "the AWS Secrets Manager secret \(id)", reason: error.description)
                }
            }
        }
        if let (variable, path) = try EnvironmentFile.setting("ENV_AWS_SSM_PARAMETERS_PATH", in: environment) {
            let (region, endpoint, credentials) = try access(.systemsManager, regionSetting: "ENV_AWS_SSM_PARAMETERS_REGION", for: variable, in: environment)
            let parameters: [(name: String, value: String)]
            do {
                parameters = try await AWSJSONService.systemsManager.parameters(under: path, region: region, endpoint: endpoint, credentials: credentials)
            } catch {
                throw SettingError(setting: variable, source: "the environment (\(variable))", reason: "AWS Systems Manager \(error)")
            }
            for (name, value) in parameters where name.hasPrefix(path) {
                let key = name.dropFirst(path.count).drop { $0 == "/" }.replacingOccurrences(of: "/", with: "_")
                if !key.isEmpty { merged[key] = value }
            }
        }
        return merged
    }

    /// Where and as whom `service` is called.
    private static func access(
        _ service: AWSJSONService, regionSetting: String, for variable: String, in environment: [String: String]
    ) throws(SettingError) -> (region: String, endpoint: URL, credentials: AWSCredentials) {
        let region = try EnvironmentFile.setting(regionSetting, in: environment)?.value
            ?? [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty }
            ?? "us-west-1"
        guard let credentials = AWSCredentials(environment: environment) else {
            throw SettingError(
                setting: variable, source: "the environment (\(variable))",
                reason: "needs AWS credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones)"
            )
        }
        guard let endpoint = service.endpoint(region: region, environment: environment), endpoint.host != nil else {
            throw SettingError(setting: variable, source: "the environment (\(variable))", reason: "the endpoint AWS_ENDPOINT_URL names is not a URL")
        }
        return (region, endpoint, credentials)
    }
}
