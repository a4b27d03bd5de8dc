#if canImport(Glibc)
import Glibc
#endif

// `imagery-peak-memory EXECUTABLE [ARGUMENT...]`: runs the executable with its output discarded
// and prints "<exit code> <peak resident KB>" for it. A test-support executable.
//
// Why a go-between: Linux folds the high-water mark of the address space a process leaves at
// exec into its ru_maxrss, and a child spawned by the test runner leaves the runner's own
// (vfork shares it), so wait4 in the runner reports the runner's few hundred MB for every child.
// This process is small and imports no Foundation, so the figure its child reports is the
// child's own (seen: 305,196 KB for a probe whose own peak is about 46 MB).

/// Says why on standard error and exits 2 (`stderr` itself is a global var Swift 6 refuses).
func fail(_ message: String) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let executable = arguments.first else { fail("usage: imagery-peak-memory EXECUTABLE [ARGUMENT...]") }

var actions = posix_spawn_file_actions_t()
posix_spawn_file_actions_init(&actions)
posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
let argv = arguments.map { strdup($0) } + [nil]
var pid: pid_t = 0
let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
guard spawned == 0 else { fail("imagery-peak-memory: cannot run \(executable): \(String(cString: strerror(spawned)))") }

var status: Int32 = 0
var usage = rusage()
while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
let exitCode: Int32 = status & 0x7f == 0 ? (status >> 8) & 0xff : -1
print(exitCode, usage.ru_maxrss)
