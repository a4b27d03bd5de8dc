import ImageryTestSupport
import Testing

extension Tag {
    /// Tests that start other programs (nginx, Chromium, the server or a probe as a child
    /// process) or need the system's help (bind mounts). Each also carries
    /// ``Trait/offUnderSanitizer``: `.ci/run` runs them in its plain and trait passes, and its
    /// ThreadSanitizer pass, which is for the concurrency suites, leaves them out.
    @Tag static var integration: Self
}

extension Trait where Self == ConditionTrait {
    /// Off in a sanitizer build: a child's reports reach no test, and its instrumented figures
    /// are the sanitizer's as much as the program's.
    static var offUnderSanitizer: Self {
        .disabled(if: Sanitizer.isActive, "an integration test: the ThreadSanitizer pass covers the concurrency suites, not children")
    }
}
