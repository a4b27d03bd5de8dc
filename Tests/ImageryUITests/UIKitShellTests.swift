// The UIKit shell, run on Linux against the UIKit stub: the stub stores what the views are
// given (an image view's image, an associated object) and draws nothing, which is enough to
// see that the shell passes the controller's decisions through.
import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
@testable import ImageryUI
import Testing
#if canImport(UIKit)
import UIKit
#else
import UIKitStub
#endif
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

#if canImport(UIKit) || os(Linux)
extension ImageViewContent {
    var isImage: Bool { if case .image = self { true } else { false } }
    var isFailure: Bool { if case .failure = self { true } else { false } }
}

@MainActor
@Suite(.timeLimit(.minutes(10)))
struct UIKitShellTests {
    let loader = ControlledLoader { id in id == "broken" ? [0x00] : Fixtures.rocket }

    @Test("loadImage shows the placeholder, then the image; cancelImageLoad empties the view; one controller per view")
    func imageViewLoads() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let view = UIImageView(frame: .zero)
        let placeholder = try #require(Bitmap(width: 2, height: 2, filledWith: RGBA(red: 9, green: 9, blue: 9)).makeUIImage())
        let failure = try #require(Bitmap(width: 3, height: 3, filledWith: RGBA(red: 1, green: 1, blue: 1)).makeUIImage())

        view.loadImage(
            ImageRequest(source: .controlled("cell"), resize: .fill(width: 40, height: 30)),
            options: ImageLoadingOptions(placeholder: placeholder, failureImage: failure), pipeline: pipeline
        )
        #expect(view.image === placeholder)
        let controller = view.imageLoadingController
        #expect(view.imageLoadingController === controller)

        loader.release("cell")
        await waitUntil(controller.model) { _ in controller.content?.isImage == true }
        #expect(view.image?.cgImage?.width == 40)
        #expect(view.image?.scale == view.traitCollection.displayScale)

        // A cached request in a reused cell: no placeholder, the image in the same call
        view.cancelImageLoad()
        #expect(view.image == nil)
        view.loadImage(ImageRequest(source: .controlled("cell"), resize: .fill(width: 40, height: 30)), options: ImageLoadingOptions(placeholder: placeholder), pipeline: pipeline)
        #expect(view.image?.cgImage?.width == 40)

        // A failure shows the failure image
        loader.release("broken")
        view.loadImage(ImageRequest(source: .controlled("broken")), options: ImageLoadingOptions(placeholder: placeholder, failureImage: failure), pipeline: pipeline)
        await waitUntil(controller.model) { _ in controller.content?.isFailure == true }
        #expect(view.image === failure)
    }

    @Test("The prefetch source starts and stops the items' prefetches")
    func prefetchSource() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let source = ImagePrefetchSource(pipeline: pipeline) { indexPath in
            ImageRequest(source: .controlled("item\(indexPath.item)"), resize: .fill(width: 24, height: 24))
        }
        let collectionView = UICollectionView(frame: .zero, collectionViewLayout: UICollectionViewFlowLayout())
        collectionView.prefetchDataSource = source
        source.collectionView(collectionView, prefetchItemsAt: [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)])
        #expect(source.prefetcher.count == 2)
        #expect(await loader.events.wait(for: "started:item1"))
        source.collectionView(collectionView, cancelPrefetchingForItemsAt: [IndexPath(item: 1, section: 0)])
        #expect(await loader.events.wait(for: "cancelled:item1"))

        let tableView = UITableView(frame: .zero)
        source.tableView(tableView, prefetchRowsAt: [IndexPath(row: 5, section: 0)])
        #expect(await loader.events.wait(for: "started:item5"))
        source.tableView(tableView, cancelPrefetchingForRowsAt: [IndexPath(row: 5, section: 0)])
        #expect(await loader.events.wait(for: "cancelled:item5"))
        source.prefetcher.stopAll()
    }

    @Test("UIKit's and SwiftUI's orientations are Imagery's, case for case: the one mapping both shells use")
    func orientationsByName() {
        for orientation in ImageOrientation.allCases {
            let uiKit: UIImage.Orientation = orientation.named(), swiftUI: Image.Orientation = orientation.named()
            #expect("\(uiKit)" == "\(orientation)" && "\(swiftUI)" == "\(orientation)")
        }
    }
}
#endif
