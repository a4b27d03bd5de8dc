/// A 128-bit digest that is the same in every process (unlike `Hasher`), for cache keys that
/// must not carry a secret in clear: two independent 64-bit FNV-1a lanes.
///
/// It is not a cryptographic hash. It keeps tokens out of keys and logs and makes an
/// accidental collision between two users' credentials vanishingly unlikely; it does not
/// resist an attacker who can choose inputs to collide with a known digest.
enum StableDigest {
    static func hex(of string: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in string.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b &* 0x0000_0100_0000_01B3) ^ UInt64(byte &+ 0x5A)
        }
        return hex64(a) + hex64(b)
    }

    private static func hex64(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
