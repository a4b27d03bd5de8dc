// On Linux this type-checks against the UIKit stub (Sources/Stubs/UIKitStub); on macOS, where
// there is no UIKit, it is left out. Everything it decides is ImagePrefetcher's.
// Not on watchOS: UIKit there has no UIImageView, view transitions or collection views.
#if (canImport(UIKit) && !os(watchOS)) || os(Linux)
import Foundation
import Imagery
#if canImport(UIKit)
import UIKit
#else
import UIKitStub
#endif

/// A collection or table view's `prefetchDataSource` that prefetches the images of the items
/// about to scroll into view, and stops when they scroll away again, through an
/// ``ImagePrefetcher``.
///
/// ```swift
/// prefetchSource = ImagePrefetchSource { [unowned self] indexPath in photos[indexPath.item].thumbnail }
/// collectionView.prefetchDataSource = prefetchSource   // a weak property: keep prefetchSource
/// ```
@MainActor
public final class ImagePrefetchSource: NSObject, UICollectionViewDataSourcePrefetching, UITableViewDataSourcePrefetching {
    /// What prefetches.
    public let prefetcher: ImagePrefetcher
    private let requests: (IndexPath) -> ImageRequest?

    /// Prefetches into `pipeline` the request `requests` gives for each index path (`nil`: no
    /// image there). Use the requests the cells load, so a prefetched image is a memory hit.
    public init(pipeline: ImagePipeline = .shared, requests: @escaping (IndexPath) -> ImageRequest?) {
        self.prefetcher = ImagePrefetcher(pipeline: pipeline)
        self.requests = requests
    }

    public func collectionView(_ collectionView: UICollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        prefetcher.startPrefetching(indexPaths.compactMap(requests))
    }

    public func collectionView(_ collectionView: UICollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        prefetcher.stopPrefetching(indexPaths.compactMap(requests))
    }

    public func tableView(_ tableView: UITableView, prefetchRowsAt indexPaths: [IndexPath]) {
        prefetcher.startPrefetching(indexPaths.compactMap(requests))
    }

    public func tableView(_ tableView: UITableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) {
        prefetcher.stopPrefetching(indexPaths.compactMap(requests))
    }
}
#endif
