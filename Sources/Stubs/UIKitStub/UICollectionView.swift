#if os(Linux)

/// https://developer.apple.com/documentation/foundation/indexpath (UIKit's additions)
extension IndexPath {
    /// https://developer.apple.com/documentation/foundation/indexpath/init(item:section:)
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// https://developer.apple.com/documentation/foundation/indexpath/init(row:section:)
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    /// https://developer.apple.com/documentation/foundation/indexpath/item
    public var item: Int { self[1] }
    /// https://developer.apple.com/documentation/foundation/indexpath/row
    public var row: Int { self[1] }
    /// https://developer.apple.com/documentation/foundation/indexpath/section
    public var section: Int { self[0] }
}

/// https://developer.apple.com/documentation/uikit/uiscrollview
@MainActor @preconcurrency
open class UIScrollView: UIView {}

/// https://developer.apple.com/documentation/uikit/uicollectionviewcell
@MainActor @preconcurrency
open class UICollectionViewCell: UIView {
    /// https://developer.apple.com/documentation/uikit/uicollectionviewcell/contentview
    open var contentView: UIView { content }
    private let content = UIView(frame: .zero)

    /// https://developer.apple.com/documentation/uikit/uicollectionreusableview/prepareforreuse()
    open func prepareForReuse() {}
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewlayout
@MainActor @preconcurrency
open class UICollectionViewLayout: NSObject {
    public override init() { super.init() }
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewflowlayout
@MainActor @preconcurrency
open class UICollectionViewFlowLayout: UICollectionViewLayout {}

/// https://developer.apple.com/documentation/uikit/uicollectionview
@MainActor @preconcurrency
open class UICollectionView: UIScrollView {
    /// https://developer.apple.com/documentation/uikit/uicollectionview/init(frame:collectionviewlayout:)
    /// (UIKit refuses a collection view without a layout, so the stub has no `init(frame:)`).
    public init(frame: CGRect, collectionViewLayout layout: UICollectionViewLayout) { super.init(frame: frame) }

    public required init?(coder: NSCoder) { super.init(coder: coder) }

    /// https://developer.apple.com/documentation/uikit/uicollectionview/prefetchdatasource
    open weak var prefetchDataSource: (any UICollectionViewDataSourcePrefetching)?
    /// https://developer.apple.com/documentation/uikit/uicollectionview/datasource
    open weak var dataSource: (any UICollectionViewDataSource)?
    /// https://developer.apple.com/documentation/uikit/uicollectionview/delegate
    open weak var delegate: (any UICollectionViewDelegate)?

    /// https://developer.apple.com/documentation/uikit/uicollectionview/register(_:forcellwithreuseidentifier:)-8duwn
    open func register(_ cellClass: AnyClass?, forCellWithReuseIdentifier identifier: String) {}

    /// https://developer.apple.com/documentation/uikit/uicollectionview/dequeuereusablecell(withreuseidentifier:for:)
    /// The stub has no cells to reuse: it only type-checks callers.
    open func dequeueReusableCell(withReuseIdentifier identifier: String, for indexPath: IndexPath) -> UICollectionViewCell {
        UICollectionViewCell(frame: .zero)
    }
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewdatasource
@MainActor @preconcurrency
public protocol UICollectionViewDataSource: NSObjectProtocol {
    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int
    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath) -> UICollectionViewCell
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewdelegate (the stub lists the
/// optional methods Imagery's examples implement, with empty defaults)
@MainActor @preconcurrency
public protocol UICollectionViewDelegate: NSObjectProtocol {
    func collectionView(_ collectionView: UICollectionView, willDisplay cell: UICollectionViewCell, forItemAt indexPath: IndexPath)
    func collectionView(_ collectionView: UICollectionView, didEndDisplaying cell: UICollectionViewCell, forItemAt indexPath: IndexPath)
}

extension UICollectionViewDelegate {
    public func collectionView(_ collectionView: UICollectionView, willDisplay cell: UICollectionViewCell, forItemAt indexPath: IndexPath) {}
    public func collectionView(_ collectionView: UICollectionView, didEndDisplaying cell: UICollectionViewCell, forItemAt indexPath: IndexPath) {}
}

/// https://developer.apple.com/documentation/uikit/uicollectionviewdatasourceprefetching
@MainActor @preconcurrency
public protocol UICollectionViewDataSourcePrefetching: NSObjectProtocol {
    func collectionView(_ collectionView: UICollectionView, prefetchItemsAt indexPaths: [IndexPath])
    /// Optional in UIKit.
    func collectionView(_ collectionView: UICollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath])
}

/// https://developer.apple.com/documentation/uikit/uitableview
@MainActor @preconcurrency
open class UITableView: UIScrollView {
    /// https://developer.apple.com/documentation/uikit/uitableview/prefetchdatasource
    open weak var prefetchDataSource: (any UITableViewDataSourcePrefetching)?
}

/// https://developer.apple.com/documentation/uikit/uitableviewdatasourceprefetching
@MainActor @preconcurrency
public protocol UITableViewDataSourcePrefetching: NSObjectProtocol {
    func tableView(_ tableView: UITableView, prefetchRowsAt indexPaths: [IndexPath])
    /// Optional in UIKit.
    func tableView(_ tableView: UITableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath])
}
#endif
