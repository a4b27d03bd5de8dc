// The Objective-C runtime's associated objects, which UIKit apps get from the ObjectiveC module.
#if os(Linux)

/// https://developer.apple.com/documentation/objectivec/objc_associationpolicy
public enum objc_AssociationPolicy: UInt, Sendable {
    case OBJC_ASSOCIATION_ASSIGN = 0
    case OBJC_ASSOCIATION_RETAIN_NONATOMIC = 1
    case OBJC_ASSOCIATION_COPY_NONATOMIC = 3
    case OBJC_ASSOCIATION_RETAIN = 769
    case OBJC_ASSOCIATION_COPY = 771
}

/// https://developer.apple.com/documentation/objectivec/objc_getassociatedobject(_:_:)
/// The stub keeps associations on UIKit objects only, on the main actor.
@MainActor
public func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any? {
    (object as? UIResponder)?.associatedObjects[key]
}

/// https://developer.apple.com/documentation/objectivec/objc_setassociatedobject(_:_:_:_:)
@MainActor
public func objc_setAssociatedObject(_ object: Any, _ key: UnsafeRawPointer, _ value: Any?, _ policy: objc_AssociationPolicy) {
    (object as? UIResponder)?.associatedObjects[key] = value
}
#endif
