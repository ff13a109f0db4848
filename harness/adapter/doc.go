// Package adapter starts the kernel under test and gives the harness its two
// pipes: a subprocess speaking on stdin/stdout (any language), or a Go
// kernel served in-process over io.Pipe. Both paths end in the same
// jsonrpc.Conn, so the reference kernel is checked exactly the way a
// third-party kernel is.
//
// A subprocess kernel runs in a box (issue 13, "The kernel runs in a box"):
//
//   - Environment: it gets only the variables PassedEnv and
//     PassedEnvPrefixes name (PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, TZ,
//     LANG, LANGUAGE, LC_*, XDG_{CACHE,CONFIG,DATA,STATE}_HOME,
//     LD_LIBRARY_PATH, the certificate bundle's location, and the Go, Python, JavaScript, JVM, Rust, Ruby and
//     .NET toolchain settings listed there), plus Subprocess.Env (the CLI's
//     --env NAME and --env NAME=VALUE), plus MarkerEnv. Tokens, keys and
//     other secrets in conform's environment never reach the kernel unless
//     asked for, so a kernel that prints its environment cannot leak them.
//   - Processes: it runs in its own process group. On Linux conform is a
//     child subreaper, so what the kernel starts stays in conform's process
//     tree even after setsid or a double fork; Close kills the kernel's
//     whole tree, its group and every process carrying its MarkerEnv, and
//     reaps the orphans conform adopted, without touching other kernels
//     running at the same time (see box_linux.go). Limit: a process that
//     clears its environment and leaves the kernel's tree and group before
//     Close is not found. Elsewhere (macOS, BSD) only the process group is
//     killed: a process the kernel starts in a new session or group may
//     outlive the run. Being a subreaper, a program that uses this package
//     also adopts orphans of children it starts by other means; those it
//     does not reap.
//   - Exit: when the kernel process exits while a process it started still
//     holds its stdout, the output ends once what the kernel wrote is read,
//     and Endpoint.OutputHeld says so, instead of the harness waiting for a
//     scenario timeout and calling a crashed kernel hung.
//
// The subprocess launcher needs a Unix system.
package adapter
