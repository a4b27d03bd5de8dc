import ImageryImgproxy

extension ServerConfiguration {
    /// The signer for `keyHex` and `saltHex`; `nil` without a key.
    func makeSigner() throws(ServerSetupError) -> ImgproxySigner? {
        guard let keyHex else { return nil }
        do throws(ImgproxyError) {
            return try ImgproxySigner(
                keysHex: keyHex, saltsHex: saltHex ?? "", signatureSize: signatureSize, trusted: Set(trustedSignatures)
            )
        } catch {
            throw .invalidKey(error.message)
        }
    }
}
