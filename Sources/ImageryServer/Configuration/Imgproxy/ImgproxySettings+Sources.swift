extension ImgproxySettings {
    static let sources: [ImgproxySetting] = [
        otherCloud("USE_GCS", "Google Cloud Storage"), otherCloud("GCS_KEY", "Google Cloud Storage"),
        otherCloud("GCS_ENDPOINT", "Google Cloud Storage"), otherCloud("GCS_ALLOWED_BUCKETS", "Google Cloud Storage"),
        otherCloud("GCS_DENIED_BUCKETS", "Google Cloud Storage"),
        otherCloud("USE_ABS", "Azure Blob Storage"), otherCloud("ABS_NAME", "Azure Blob Storage"), otherCloud("ABS_KEY", "Azure Blob Storage"),
        otherCloud("ABS_ENDPOINT", "Azure Blob Storage"), otherCloud("ABS_ALLOWED_BUCKETS", "Azure Blob Storage"),
        otherCloud("ABS_DENIED_BUCKETS", "Azure Blob Storage"),
        otherCloud("USE_SWIFT", "OpenStack Swift"), otherCloud("SWIFT_USERNAME", "OpenStack Swift"), otherCloud("SWIFT_API_KEY", "OpenStack Swift"),
        otherCloud("SWIFT_AUTH_URL", "OpenStack Swift"), otherCloud("SWIFT_AUTH_VERSION", "OpenStack Swift"), otherCloud("SWIFT_TENANT", "OpenStack Swift"),
        otherCloud("SWIFT_DOMAIN", "OpenStack Swift"), otherCloud("SWIFT_TIMEOUT_SECONDS", "OpenStack Swift"),
        otherCloud("SWIFT_CONNECT_TIMEOUT_SECONDS", "OpenStack Swift"), otherCloud("SWIFT_ALLOWED_BUCKETS", "OpenStack Swift"),
        otherCloud("SWIFT_DENIED_BUCKETS", "OpenStack Swift"),
    ]

    /// The settings that pull an environment from elsewhere before the server reads it.
    static let environment: [ImgproxySetting] = [
        .converted("ENV_LOCAL_FILE_PATH", .text, sets: [], note: "a KEY=VALUE file read before the environment, its values over the process's") { _, _ throws(SettingError.Reason) in nil },
        .converted("ENV_AWS_SECRET_ID", .text, sets: [], note: "an AWS Secrets Manager secret of KEY=VALUE lines, read before the environment, its values over the process's") { _, _ throws(SettingError.Reason) in nil },
        .converted("ENV_AWS_SECRET_VERSION_ID", .text, sets: [], note: "the secret's version") { _, _ throws(SettingError.Reason) in nil },
        .converted("ENV_AWS_SECRET_VERSION_STAGE", .text, sets: [], note: "the secret's stage, unless a version is given") { _, _ throws(SettingError.Reason) in nil },
        .converted("ENV_AWS_SECRET_REGION", .text, sets: [], note: "the secret's region (else AWS_REGION, else us-west-1)") { _, _ throws(SettingError.Reason) in nil },
        .converted("ENV_AWS_SSM_PARAMETERS_PATH", .text, sets: [], note: "every AWS Systems Manager parameter under the path, read after the secret, over it") { _, _ throws(SettingError.Reason) in nil },
        .converted("ENV_AWS_SSM_PARAMETERS_REGION", .text, sets: [], note: "the parameters' region (else AWS_REGION, else us-west-1)") { _, _ throws(SettingError.Reason) in nil },
        .refused("ENV_GCP_SECRET_ID", why: "Google Cloud Secret Manager is not read", instead: "IMGPROXY_ENV_LOCAL_FILE_PATH, or the secret mounted as variables", accepting: nil),
        .refused("ENV_GCP_SECRET_VERSION_ID", why: "Google Cloud Secret Manager is not read", instead: "IMGPROXY_ENV_LOCAL_FILE_PATH, or the secret mounted as variables", accepting: nil),
        .refused("ENV_GCP_SECRET_PROJECT_ID", why: "Google Cloud Secret Manager is not read", instead: "IMGPROXY_ENV_LOCAL_FILE_PATH, or the secret mounted as variables", accepting: nil),
        .refused("ENV_GCP_KEY", why: "Google Cloud Secret Manager is not read", instead: "IMGPROXY_ENV_LOCAL_FILE_PATH, or the secret mounted as variables", accepting: nil),
    ]
}
