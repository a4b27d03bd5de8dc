import Foundation
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The collector's CA and this client's certificate and key, given as PEM text (imgproxy's
/// `IMGPROXY_OPEN_TELEMETRY_SERVER_CERT`, `_CLIENT_CERT`, `_CLIENT_KEY`), written where
/// swift-otel, which reads them from files, finds them: a directory only this user can enter.
///
/// The client's pair is read as the exporter is made, so ``removeClientPair()`` deletes it right
/// after; the key spends no longer on disk than that. The CA is read at each new connection, so
/// it stays until ``Cleanup`` removes the directory when the server stops.
final class PEMFiles: Sendable {
    let directory: String
    /// The files written, as the configuration with their paths in place of the PEM text.
    let configuration: TelemetryConfiguration

    /// `nil` when `telemetry` carries no PEM text.
    init?(_ telemetry: TelemetryConfiguration) throws {
        guard telemetry.certificatePEM != nil || telemetry.clientCertificatePEM != nil || telemetry.clientKeyPEM != nil else { return nil }
        var template = Array((FileManager.default.temporaryDirectory.path + "/imagery-pem-XXXXXX").utf8CString)
        // mkdtemp makes the directory 0700: no other user can list or open what is in it.
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteNoPermission) }
        directory = String(cString: made)
        var resolved = telemetry
        do {
            if let pem = telemetry.certificatePEM { resolved.certificatePath = try Self.write(pem, to: directory + "/ca.pem") }
            if let pem = telemetry.clientCertificatePEM { resolved.clientCertificatePath = try Self.write(pem, to: directory + "/client.pem") }
            if let pem = telemetry.clientKeyPEM { resolved.clientKeyPath = try Self.write(pem, to: directory + "/client-key.pem") }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        resolved.certificatePEM = nil
        resolved.clientCertificatePEM = nil
        resolved.clientKeyPEM = nil
        configuration = resolved
    }

    /// Deletes the client's certificate and key once the exporters hold them.
    func removeClientPair() {
        for name in ["client.pem", "client-key.pem"] { unlink(directory + "/" + name) }
    }

    func removeAll() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Created only by this process, readable only by its user, and never through a link.
    private static func write(_ text: String, to path: String) throws -> String {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let ending = text.hasSuffix("\n") ? "" : "\n"
        try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: Data((text + ending).utf8))
        return path
    }

    /// Removes the directory when the server stops. First among the services, it is stopped
    /// last, after the exporters' final batch.
    struct Cleanup: Service {
        let files: PEMFiles

        func run() async throws {
            try? await gracefulShutdown()
            files.removeAll()
        }
    }
}
