import HTTPTypes
import ImageryImgproxy

extension ClientHints {
    /// The hints in a request's headers; the `Sec-CH-` names win over the legacy ones.
    init(_ headers: HTTPFields) {
        self.init(
            dpr: headers[.secCHDPR] ?? headers[.dpr],
            width: headers[.secCHWidth] ?? headers[.width]
        )
    }
}

extension HTTPField.Name {
    static let acceptCH = HTTPField.Name("Accept-CH")!
    static let dpr = HTTPField.Name("DPR")!
    static let width = HTTPField.Name("Width")!
    static let secCHDPR = HTTPField.Name("Sec-CH-DPR")!
    static let secCHWidth = HTTPField.Name("Sec-CH-Width")!
}
