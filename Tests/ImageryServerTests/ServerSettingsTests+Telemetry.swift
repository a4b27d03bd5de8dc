import Foundation
import Imagery
@testable import ImageryServer
import ImageryTestSupport
import Logging
import Testing

/// imgproxy's `OPEN_TELEMETRY_*` switches and OpenTelemetry's own `OTEL_*` variables, read
/// through the one settings table.
extension ServerSettingsTests {
    @Test("OTEL_* variables are read under their own names, beside IMAGERY_OTEL_*; two that disagree stop the start")
    func standardVariables() async throws {
        let loaded = try await Self.load(environment: [
            "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL": "1",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_SERVICE_NAME": "images", "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test,team=media",
            "OTEL_BSP_SCHEDULE_DELAY": "200", "OTEL_EXPORTER_OTLP_HEADERS": "x-honeycomb-team=secret-key",
        ])
        let telemetry = loaded.configuration.telemetry
        #expect(telemetry.enabled && telemetry.propagatesExternal)
        #expect(telemetry.endpoint == "http://127.0.0.1:4318" && telemetry.transport == "http/protobuf")
        #expect(telemetry.serviceName == "images" && telemetry.attributes == ["deployment.environment": "test", "team": "media"])
        #expect(telemetry.batchDelayMilliseconds == 200)
        #expect(loaded.origins["otel-service-name"] == "the environment (OTEL_SERVICE_NAME)")
        #expect(loaded.origins["open-telemetry-enable"] == "the environment (IMGPROXY_OPEN_TELEMETRY_ENABLE)")
        #expect(!ServerSettings.printed(loaded).contains("secret-key"), "the exporter's headers are a secret")

        let disagreement = await Self.refusal(environment: ["OTEL_SERVICE_NAME": "a", "IMAGERY_OTEL_SERVICE_NAME": "b"])
        #expect(disagreement?.reason.contains("disagrees") == true, "\(String(describing: disagreement))")
        let badPairs = await Self.refusal(environment: ["OTEL_RESOURCE_ATTRIBUTES": "no-equals-sign"])
        #expect(badPairs?.setting == "OTEL_RESOURCE_ATTRIBUTES", "\(String(describing: badPairs))")
    }

    @Test("Traces need a protocol this server sends: none (imgproxy's default is gRPC) and grpc are refused by name, with the line to set")
    func protocolRefusals() throws {
        var telemetry = TelemetryConfiguration()
        telemetry.enabled = true
        let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        for transport in [nil, "grpc"] as [String?] {
            telemetry.transport = transport
            #expect {
                _ = try Telemetry(telemetry, diagnostics: quiet)
            } throws: { error in
                guard let error = error as? SettingError else { return false }
                return Telemetry.isAvailable
                    ? error.setting == "OTEL_EXPORTER_OTLP_PROTOCOL" && error.reason.contains("OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
                    : error.setting == "--open-telemetry-enable" && error.reason.contains("--traits OpenTelemetry")
            }
        }
        #expect(try Telemetry(TelemetryConfiguration(), diagnostics: quiet) == nil, "nothing asked, nothing made")
    }

    @Test("imgproxy's OpenTelemetry settings: PEM text and OTLP metrics honoured, one of PEM text and a file, both halves of mutual TLS, xray warned about")
    func imgproxyTelemetrySettings() async throws {
        let ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", key = "-----BEGIN PRIVATE KEY-----\nsecret-key-body\n-----END PRIVATE KEY-----"
        let loaded = try await Self.load(environment: [
            "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT": ca, "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT": ca, "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY": key,
            "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "true", "OTEL_METRIC_EXPORT_INTERVAL": "250",
        ])
        let telemetry = loaded.configuration.telemetry
        #expect(telemetry.certificatePEM == ca && telemetry.clientCertificatePEM == ca && telemetry.clientKeyPEM == key)
        #expect(telemetry.sendsMetrics && telemetry.metricIntervalMilliseconds == 250)
        #expect(!ServerSettings.printed(loaded).contains("secret-key-body"), "the client's key is a secret")
        let notPEM = await Self.refusal(environment: ["IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY": "secret-key-body"])
        #expect(notPEM?.setting == "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY" && notPEM?.reason.contains("secret-key-body") == false, "\(String(describing: notPEM))")

        var both = TelemetryConfiguration()
        both.enabled = true
        both.transport = "http/protobuf"
        both.certificatePEM = ca
        both.certificatePath = "/etc/ssl/ca.pem"
        #expect(throws: SettingError.self) { try Telemetry.check(both, origins: [:]) }
        var half = TelemetryConfiguration()
        half.enabled = true
        half.transport = "http/protobuf"
        half.clientCertificatePEM = ca
        #expect { try Telemetry.check(half, origins: [:]) } throws: { error in
            (error as? SettingError)?.reason.contains("both the client's certificate and its key") == true || !Telemetry.isAvailable
        }

        let xray = try await Self.load(environment: ["IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR": "xray"])
        #expect(xray.warnings.contains { $0.contains("trace ids will be random") })
        #expect(await Self.refusal(environment: ["IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR": "sequential"]) != nil)
    }
}
