import Foundation
import Imagery
import ImageryCodecs
import ImageryHTTPClient

extension ServerConfiguration {
    /// The origin loader's limits, and the SSRF guard on every hop. The store of `s3://`
    /// sources is the server's to add (``s3()``): it is built once, after the role is assumed,
    /// and a store that cannot be built stops the start instead of leaving S3 off.
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
        // imgproxy's cookie jar sends scoped cookies to their host alone, and all of them everywhere with _ALL.
        loading.keepsCredentialsAcrossHosts = cookiePassthrough.passesAll
        loading.propagatesTraceContext = telemetry.propagatesExternal
        loading.keepAliveTimeout = clientKeepAliveTimeout
        loading.verifiesCertificates = !ignoreSSLVerification
        return loading
    }
}
