import Foundation
import Imagery
@testable import ImageryImgproxy
import Testing

/// A plan's identity promises that equal identities make the same answer. The hand-kept string
/// it replaces had lost three of the plan's properties; these tests find the plan's and the
/// request's stored properties by reflection and change each in turn, so a property added
/// without a change here fails, and so would one the identity left out.
@Suite("A plan's identity covers every property of the plan")
struct ImgproxyPlanIdentityTests {
    static let defaults = ImgproxyPlan.Defaults(quality: 80, maximumPixelCount: 50_000_000, writableFormats: [.jpeg, .png, .webp])

    static func plan() throws -> ImgproxyPlan {
        try ImgproxyPlan(options: ImgproxyOptions(), source: .url(URL(string: "https://example.com/photos/a.jpg")!), fileExtension: nil, defaults: defaults)
    }

    /// One change per stored property of the plan, away from what `plan()` makes (no format,
    /// expiry, per-format quality, bypass or autoquality).
    static var planChanges: [String: (inout ImgproxyPlan) -> Void] {
        [
            "request": { $0.request.processors.append(.circle) },
            "format": { $0.format = .webp },
            "quality": { $0.quality += 1 },
            "background": { $0.background = RGBA(red: 1, green: 2, blue: 3) },
            "expires": { $0.expires = 1_700_000_000 },
            "formatQuality": { $0.formatQuality[.webp] = 50 },
            "maximumBytes": { $0.maximumBytes += 1_000 },
            "bypass": { $0.bypass = .raw },
            "maximumSourceBytes": { $0.maximumSourceBytes += 1_000 },
            "maximumResultDimension": { $0.maximumResultDimension += 100 },
            "filename": { $0.filename += "-2" },
            "returnsAttachment": { $0.returnsAttachment.toggle() },
            "autoQuality": { $0.autoQuality = ImgproxyAutoQuality(method: .size, target: 10_000) },
            "bestFormat": { $0.bestFormat.toggle() },
            "autoQualityDefaults": { $0.autoQualityDefaults.maximumMegapixels += 1 },
            "metadata": { $0.metadata.keepsCopyright.toggle() },
        ]
    }

    /// One change per stored property of the request, and whether it changes the answer: its
    /// priority, cache options, placeholder and previews change when a caller is answered, not
    /// with what.
    static var requestChanges: [String: (change: (inout ImageRequest) -> Void, changesAnswer: Bool)] {
        [
            "source": (change: { $0.source = .url(URL(string: "https://example.com/photos/b.jpg")!) }, changesAnswer: true),
            "decodeOptions": (change: { $0.decodeOptions.keptMetadata = [.xmp] }, changesAnswer: true),
            "maximumPixelCount": (change: { $0.maximumPixelCount -= 1 }, changesAnswer: true),
            "cacheIdentity": (change: { $0.cacheIdentity = "photo-1" }, changesAnswer: true),
            "processors": (change: { $0.processors.append(.circle) }, changesAnswer: true),
            "priority": (change: { $0.priority = .veryHigh }, changesAnswer: false),
            "options": (change: { $0.options = .reloadIgnoringCachedData }, changesAnswer: false),
            "placeholder": (change: { $0.placeholder = PlaceholderHash(thumbHashBase64: "1QcSHQRnh493V4dIh4eXh1h4kJUI") }, changesAnswer: false),
            "progressivePreviews": (change: { $0.progressivePreviews = true }, changesAnswer: false),
        ]
    }

    static func labels(of value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap { $0.label })
    }

    @Test("Every stored property of the plan and of its request has a change here, and only they do")
    func everyPropertyHasAChange() throws {
        let plan = try Self.plan()
        #expect(Self.labels(of: plan) == Set(Self.planChanges.keys))
        #expect(Self.labels(of: plan.request) == Set(Self.requestChanges.keys))
    }

    @Test("Plans made alike have equal identities")
    func equalPlansEqualIdentities() throws {
        #expect(try Self.plan().identity == Self.plan().identity)
    }

    @Test("Each property of the plan changes its identity")
    func eachPlanPropertyChangesTheIdentity() throws {
        let base = try Self.plan()
        for label in Self.labels(of: base).sorted() {
            let change = try #require(Self.planChanges[label], "ImgproxyPlan.\(label) has no change in planChanges")
            var plan = base
            change(&plan)
            #expect(plan.identity != base.identity, "ImgproxyPlan.\(label)")
        }
    }

    @Test("Each property of the request that reaches the answer changes the plan's identity, and no other does")
    func eachRequestPropertyChangesTheIdentity() throws {
        let base = try Self.plan()
        for label in Self.labels(of: base.request).sorted() {
            let entry = try #require(Self.requestChanges[label], "ImageRequest.\(label) has no change in requestChanges")
            var plan = base
            entry.change(&plan.request)
            #expect((plan.identity != base.identity) == entry.changesAnswer, "ImageRequest.\(label)")
        }
    }
}
