// The UIKit article's example, compiled in every build so the docs cannot drift from the API:
// on Linux against the UIKit stub, on iOS against UIKit itself.
#if canImport(UIKit) || os(Linux)
import Foundation
import Imagery
import ImageryUI
#if canImport(UIKit)
import UIKit
#else
import UIKitStub
#endif

// Example: collection view begin
final class PhotoCell: UICollectionViewCell {
    static let reuseIdentifier = "photo"
    let photoView = UIImageView(frame: .zero)

    override init(frame: CGRect) {
        super.init(frame: frame)
        photoView.contentMode = .scaleAspectFill
        contentView.addSubview(photoView)
    }

    required init?(coder: NSCoder) { fatalError("made in code only") }

    override func prepareForReuse() {
        super.prepareForReuse()
        photoView.cancelImageLoad()   // the old row's load stops, and its image never lands here
    }

    func show(_ photo: Photo) {
        // A cached thumbnail is drawn in this call; otherwise the placeholder, then a fade.
        photoView.loadImage(photo.thumbnail, options: ImageLoadingOptions(placeholder: UIImage(systemName: "photo")))
    }
}

final class PhotoGrid: NSObject, UICollectionViewDataSource, UICollectionViewDelegate {
    let photos: [Photo]
    /// The same requests as the cells', so a prefetched thumbnail is a memory hit.
    private lazy var prefetchSource = ImagePrefetchSource { [unowned self] indexPath in
        photos[indexPath.item].thumbnail
    }

    init(photos: [Photo]) {
        self.photos = photos
    }

    func attach(to collectionView: UICollectionView) {
        collectionView.register(PhotoCell.self, forCellWithReuseIdentifier: PhotoCell.reuseIdentifier)
        collectionView.dataSource = self
        collectionView.delegate = self
        collectionView.prefetchDataSource = prefetchSource
    }

    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int {
        photos.count
    }

    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath) -> UICollectionViewCell {
        let cell = collectionView.dequeueReusableCell(withReuseIdentifier: PhotoCell.reuseIdentifier, for: indexPath)
        (cell as? PhotoCell)?.show(photos[indexPath.item])
        return cell
    }

    // An animated image plays only while its cell is on screen.
    func collectionView(_ collectionView: UICollectionView, willDisplay cell: UICollectionViewCell, forItemAt indexPath: IndexPath) {
        (cell as? PhotoCell)?.photoView.imageLoadingController.model.isVisible = true
    }

    func collectionView(_ collectionView: UICollectionView, didEndDisplaying cell: UICollectionViewCell, forItemAt indexPath: IndexPath) {
        (cell as? PhotoCell)?.photoView.imageLoadingController.model.isVisible = false
    }
}
// Example: collection view end
#endif
