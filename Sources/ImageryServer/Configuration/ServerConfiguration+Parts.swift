import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryImgproxy
import Logging

extension ServerConfiguration {
    /// The signer for `keyHex` and `saltHex`; `nil` without a key.
    func signer() throws(ServerSetupError) -> ImgproxySigner? {
        guard let keyHex else { return nil }
        do throws(ImgproxyError) {
            return try ImgproxySigner(
                keysHex: keyHex, saltsHex: saltHex ?? "", signatureSize: signatureSize, trusted: Set(trustedSignatures)
            )
        } catch {
            throw .invalidKey(error.message)
        }
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
        pipeline.imageCache = ImageCache(costLimit: imageCacheBytes)
        pipeline.logger = logger
        return pipeline
    }

    /// ``ResponseVariantKey/settings``: what changes a response's bytes for one URL.
    var outputSettingsDigest: String {
        ResponseVariantKey.settingsDigest([
            ("quality", String(defaultQuality)),
            ("draft-headroom", String(draftHeadroom)),
            ("formats", ImageEncoder.supportedFormats.map(\.rawValue).sorted().joined(separator: ",")),
            ("cache-control", cacheControl),
            ("negotiation", negotiation.settingsDescription),
            ("avif-speed", String(avifSpeed)),
            ("client-hints", String(enableClientHints)),
            ("presets", (try? optionRules())?.presets.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.joined(separator: "/"))" }.joined(separator: ",") ?? ""),
            ("format-quality", formatQuality.joined(separator: ",")),
            ("watermark", (try? localWatermark()).flatMap { $0.map { "\($0.identity):\($0.opacity)" } } ?? watermarkURL ?? ""),
        ])
    }
}
