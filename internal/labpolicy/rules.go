package labpolicy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The rules, in one place: docs/GRADING.md's table is generated from them
// (Markdown) and a test keeps the two equal.

// Packages are standard packages a lab must not import, and why. A correct
// solution needs none of them.
var Packages = map[string]string{
	"unsafe":          "reads and writes any memory, the test's included",
	"reflect":         "reaches the test's values and unexported fields",
	"syscall":         "raw system calls: writing to the test's output, killing the process",
	"os/exec":         "runs other programs",
	"os/signal":       "intercepts the signals that end a test",
	"plugin":          "loads code nobody has read",
	"testing":         "the test framework itself: a lab can mark tests, or find out that it is tested",
	"flag":            "reads the test binary's own command line",
	"log":             "writes to the test binary's standard error (and log.Fatal ends it)",
	"runtime/debug":   "changes how the test binary crashes and reports",
	"runtime/pprof":   "writes profiles of the test binary",
	"runtime/trace":   "writes traces of the test binary",
	"runtime/cgo":     "cgo: C code runs where the Go is not read",
	"runtime/metrics": "the runtime's internals",
	"debug/buildinfo": "reads the test binary itself",
	"go/build":        "reads the course's files, the tests' included",
}

// bannedTrees are packages whose subpackages are banned too, for the same
// reason as the package itself (testing/quick, log/slog).
var bannedTrees = []string{"testing", "log", "plugin"}

// identRules are the rules for the names of one standard package: banned
// names with their reasons, or (allowOnly) the only names allowed.
type identRules struct {
	banned    map[string]string
	allowOnly []string
	otherwise string // why a name not in allowOnly is reported
}

// Identifiers are names of allowed standard packages that a lab must not
// use: stages 05 and 08 need os for their files, not for its process
// controls.
var Identifiers = map[string]identRules{
	"os": {banned: map[string]string{
		"Exit":         "ends the test binary: a forged result can be the last thing it printed",
		"Args":         "the test binary's command line: which test is running",
		"Stdout":       "the test binary's standard output, where go test reads the results",
		"Stderr":       "the test binary's standard error",
		"Stdin":        "the test binary's standard input",
		"NewFile":      "wraps a file descriptor, such as 1, the test binary's standard output",
		"Getenv":       "reads the environment the tests run in (a lab needs none)",
		"LookupEnv":    "reads the environment the tests run in (a lab needs none)",
		"Environ":      "reads the environment the tests run in (a lab needs none)",
		"Setenv":       "changes the environment of the tests",
		"Unsetenv":     "changes the environment of the tests",
		"Clearenv":     "changes the environment of the tests",
		"Getpid":       "finds the test binary's process, to signal it",
		"Getppid":      "finds the process that runs the tests",
		"FindProcess":  "finds a process to signal or kill",
		"StartProcess": "runs other programs",
		"Executable":   "finds the test binary itself",
		"Chdir":        "moves the tests to another folder",
		"Chmod":        "changes the permissions of files the tests rely on",
		"Chown":        "changes the owner of files the tests rely on",
		"Lchown":       "changes the owner of files the tests rely on",
	}},
	"fmt": {banned: map[string]string{
		"Print":   "writes to the test binary's standard output, where go test reads the results",
		"Printf":  "writes to the test binary's standard output, where go test reads the results",
		"Println": "writes to the test binary's standard output, where go test reads the results",
	}},
	"runtime": {
		allowOnly: []string{"NumCPU", "GOMAXPROCS", "Gosched", "NumGoroutine", "KeepAlive", "GC", "MemStats", "ReadMemStats"},
		otherwise: "the runtime's internals",
	},
}

// allowed renders the names of allowOnly as "`A`, `B` and `C`".
func (r identRules) allowed() string {
	names := make([]string, len(r.allowOnly))
	for i, n := range r.allowOnly {
		names[i] = "`" + n + "`"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Directives are //go: comment directives a lab must not use.
var Directives = map[string]string{
	"linkname":           "reaches unexported names of other packages, the testing package's included",
	"cgo_import_dynamic": "cgo: links code nobody has read",
	"cgo_ldflag":         "cgo: links code nobody has read",
	"embed":              "embeds files of the course, the tests' included",
}

// OutputPaths are paths that name the process's own output streams, file
// descriptors or memory: a lab that may open files (stages 05 and 08)
// could open them to write where go test reads, or to rewrite the tests'
// memory (/proc/self/mem).
var OutputPaths = []string{"/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/fd", "/proc/self", "/proc/thread-self", "/dev/tty"}

// Markdown renders the rules as the tables of docs/GRADING.md's "What a lab
// may use" section, which a test keeps equal to them.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| a lab must not import | because it |\n|---|---|\n")
	for _, p := range slices.Sorted(maps.Keys(Packages)) {
		name := "`" + p + "`"
		if slices.Contains(bannedTrees, p) {
			name += " (and below)"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", name, Packages[p])
	}
	b.WriteString("\n| a lab must not use | because it |\n|---|---|\n")
	for _, pkg := range slices.Sorted(maps.Keys(Identifiers)) {
		r := Identifiers[pkg]
		for _, name := range slices.Sorted(maps.Keys(r.banned)) {
			fmt.Fprintf(&b, "| `%s.%s` | %s |\n", pkg, name, r.banned[name])
		}
		if r.allowOnly != nil {
			fmt.Fprintf(&b, "| any name of `%s` but %s | %s |\n", pkg, r.allowed(), r.otherwise)
		}
	}
	b.WriteString("| `print`, `println` (builtins) | writes to the test binary's standard error |\n")
	b.WriteString("| `func init()`, and package-level variables whose initializer calls the lab's functions, methods or function literals (declared in any file), or hands them or the lab's values to a standard function | runs at init time, before any test, where nothing checks what it prints or does |\n")
	b.WriteString("| a build constraint (`//go:build`) on a lab file | puts the file in some builds and not others: every file is read whatever its constraint, and a lab needs none |\n")
	for _, d := range slices.Sorted(maps.Keys(Directives)) {
		fmt.Fprintf(&b, "| `//go:%s` | %s |\n", d, Directives[d])
	}
	b.WriteString("| `import \"C\"` (cgo), and assembly, C or `.syso` files in `lab/` | runs code a reader of the Go cannot see |\n")
	quoted := make([]string, len(OutputPaths))
	for i, p := range OutputPaths {
		quoted[i] = "`" + p + "`"
	}
	fmt.Fprintf(&b, "| a string holding %s | names the test binary's own output, file descriptors or memory |\n", strings.Join(quoted, ", "))
	return b.String()
}
