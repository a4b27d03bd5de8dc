extension ServerSettings {
    /// The network and the Unix socket agree: a socket path listens on it (`--network unix`
    /// may say so again), and `unix` needs one.
    static func checkListening(_ configuration: ServerConfiguration, origins: [String: String]) throws(SettingError) {
        let network = configuration.network
        if configuration.unixSocket != nil, network == .tcp4 || network == .tcp6 || (network == .tcp && origins["network"] != nil) {
            throw SettingError(
                setting: "--network", source: origins["network"] ?? "",
                reason: "\(network.rawValue) listens on TCP, and --unix-socket on a Unix socket; give one (imgproxy: IMGPROXY_NETWORK=unix with IMGPROXY_BIND=/path/to.sock)"
            )
        }
        if network == .unix, configuration.unixSocket == nil {
            throw SettingError(
                setting: "--network", source: origins["network"] ?? "",
                reason: "unix needs --unix-socket PATH (imgproxy: IMGPROXY_BIND=/path/to.sock)"
            )
        }
        if let metrics = configuration.prometheusBind, configuration.unixSocket == nil, metrics.port != 0,
           metrics == HostAndPort(host: configuration.host, port: configuration.port) {
            throw SettingError(
                setting: "--prometheus-bind", source: origins["prometheus-bind"] ?? "",
                reason: "\(metrics) is the server's own address; give /metrics a port of its own (imgproxy refuses the same binding too)"
            )
        }
        do throws(ServerSetupError) {
            _ = try configuration.bindAddress()
        } catch {
            let setting = origins["network"] != nil ? "network" : "host"
            throw SettingError(setting: "--" + setting, source: origins[setting] ?? "", reason: error.reason)
        }
    }
}
