import Foundation

/// What `.ci/run` promises about the machine it runs the suites on, so that a suite skipped
/// for a missing component can tell a developer's machine from a broken CI install.
///
/// On a developer's machine a suite whose component is missing (moto, nginx, Chromium with its
/// driver and selenium, a format trait's library) is skipped with its reason. Under `CI=true`,
/// `.ci/run` has installed every one of them, so the suite runs, and fails naming what is
/// missing: a skip there would mean the install broke and the run tested nothing.
///
/// ```swift
/// @Suite(.enabled(if: CIRun.runs(needing: NginxFront.binary != nil), "needs nginx"))
/// ```
package enum CIRun {
    /// `CI=true`, as `.ci/run` sets it.
    package static let isActive = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The package traits this pass was built with, as `.ci/run` names them in
    /// `IMAGERY_CI_TRAITS` (`AllFormats` stands for every format trait). Empty in the pass that
    /// builds none, where tests of a trait are skips by design.
    package static let expectedTraits: Set<String> = {
        let named = (ProcessInfo.processInfo.environment["IMAGERY_CI_TRAITS"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return Set(named.flatMap { $0 == "AllFormats" ? allFormats + [$0] : [$0] })
    }()

    /// The traits `AllFormats` turns on.
    package static let allFormats = ["WebP", "HEIF", "AVIF", "JPEGXL", "SVG", "TIFF"]

    /// Whether a test that needs a component `.ci/run` installs should run: where the component
    /// is `available`, and under `CI=true` whatever it finds.
    package static func runs(needing available: Bool) -> Bool {
        available || isActive
    }

    /// Whether a test of `trait` should run: where the build has it (`compiled`), and where
    /// `.ci/run` says this pass was built with it.
    package static func runs(needingTrait trait: String, compiled: Bool) -> Bool {
        compiled || expectedTraits.contains(trait)
    }

    /// Why a component the test needs is missing, for its failure.
    package static func missing(_ component: String) -> String {
        "\(component) is missing. .ci/run installs it, so under CI=true this is a broken install, not a reason to skip"
    }
}
