import HTTPTypes
import Imagery
import ImageryImgproxy

extension ImageRenderer {
    /// The fallback image, processed as `plan`'s URL asks, standing in for `failure`: with the
    /// fallback's status (or the failure's, for 0) and its own short lifetime, and never stored,
    /// so that no tier keeps it as the answer for the source that failed.
    func renderFallback(
        _ plan: ImgproxyPlan, accepted: AcceptedFormats, image: FallbackImage, settings: FallbackImageSettings, failure: ServerError
    ) async throws(ServerError) -> CachedResponse {
        var plan = plan
        plan.request.source = image.source
        plan.maximumSourceBytes = 0
        var response = try await render(plan, accepted: accepted)
        response.status = settings.httpCode == 0 ? failure.status : HTTPResponse.Status(code: settings.httpCode)
        response.storage = .nowhere
        response.setCacheControl(settings.ttl > 0 ? "max-age=\(settings.ttl), public" : headers.cacheControl)
        return response
    }
}
