import HTTPTypes
import Imagery

extension ImageService {
    /// Everything a path passes before any work: its shape, the signature, the options, the
    /// source policy and the plan. A path that fails any of them is refused here.
    static func preflight(
        _ path: String, configuration: ServerConfiguration, signature: URLSignature?
    ) throws(ServerError) -> RequestPlan {
        let parsed = try ProcessingPath.parse(path)
        if let signature, !signature.isValid(parsed.signature, for: parsed.signedPart) {
            throw .forbidden("invalid signature")
        }
        let options = try ProcessingOptions.parse(parsed.options)
        let source = try configuration.sources.source(for: parsed.source)
        return try RequestPlan(
            source: source, options: options, fileExtension: parsed.fileExtension,
            defaultQuality: configuration.defaultQuality, maximumPixelCount: configuration.maximumSourcePixels
        )
    }
}

extension ServerConfiguration {
    /// What a server with this configuration answers `path` before loading anything: `nil`
    /// when it would go on to serve it, else the refusal's status code and line. For the
    /// URL-parser fuzz target, which drives it with arbitrary bytes.
    package func refusal(of path: String) -> (status: Int, message: String)? {
        let signature = keyHex.flatMap { URLSignature(keyHex: $0, saltHex: saltHex ?? "") }
        do throws(ServerError) {
            _ = try ImageService.preflight(path, configuration: self, signature: signature)
            return nil
        } catch {
            return (error.status.code, error.message)
        }
    }
}
