#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under a sanitizer.
package enum Sanitizer {
    /// True under ThreadSanitizer or AddressSanitizer. Their runtimes reserve shadow memory as
    /// they go and run threads of their own, so a child's peak memory or CPU time measures them
    /// as much as the code; the uninstrumented runs check those figures.
    package static let isActive: Bool = {
        let process = dlopen(nil, RTLD_NOW)
        return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
    }()
}
