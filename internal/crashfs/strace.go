package crashfs

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// call is one completed system call of a strace log: strace -f prints one
// line per call, "PID name(args) = ret", or two when another thread's call
// came in between, "PID name(args <unfinished ...>" and later
// "PID <... name resumed>rest) = ret", which readCalls joins.
type call struct {
	line  int      // the line that completed it, 1-based
	name  string   // the system call
	args  []string // its arguments as strace printed them, split at the top level
	ret   int64    // the return value (strace prints it in hex for raw calls)
	err   string   // the errno name when it failed ("ENOENT"), "" on success
	unset bool     // "= ?": the call never returned (the process died in it)
}

// failed reports whether the call returned an error (or never returned).
func (c call) failed() bool { return c.err != "" || c.unset }

// readCalls reads a strace -f log and returns its system calls in the order
// they took effect: when they completed, except close, which frees its
// descriptor when it starts (another thread's open may return the same
// number before the close returns). Lines that are not calls (signals,
// exits, strace's own messages) are skipped.
func readCalls(r io.Reader) ([]call, error) {
	var calls []call
	unfinished := map[string]string{} // pid → the start of its unfinished call
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30) // a write's buffer is on its line, in hex
	for n := 1; sc.Scan(); n++ {
		pid, text := splitPID(sc.Text())
		switch {
		case strings.HasSuffix(text, " <unfinished ...>"):
			start := strings.TrimSuffix(text, " <unfinished ...>")
			unfinished[pid] = start
			if strings.HasPrefix(start, "close(") {
				c, _, err := parseCall(start + ") = 0")
				if err != nil {
					return nil, fmt.Errorf("trace line %d: %w: %s", n, err, clip(text))
				}
				c.line = n
				calls = append(calls, c)
			}
			continue
		case strings.HasPrefix(text, "<... "):
			name, rest, ok := strings.Cut(strings.TrimPrefix(text, "<... "), " resumed>")
			start, found := unfinished[pid]
			if !ok || !found || !strings.HasPrefix(start, name+"(") {
				return nil, fmt.Errorf("trace line %d: %q resumes no unfinished %s call of process %s", n, clip(text), name, pid)
			}
			delete(unfinished, pid)
			if name == "close" {
				continue // done when it started
			}
			// strace splits a call at an argument boundary, so the two
			// parts concatenate to the whole call.
			text = start + rest
		}
		c, ok, err := parseCall(text)
		if err != nil {
			return nil, fmt.Errorf("trace line %d: %w: %s", n, err, clip(text))
		}
		if ok {
			c.line = n
			calls = append(calls, c)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	return calls, nil
}

// splitPID splits the process id strace -f puts before each line.
func splitPID(line string) (pid, text string) {
	if i := strings.IndexByte(line, ' '); i > 0 {
		if _, err := strconv.Atoi(line[:i]); err == nil {
			return line[:i], strings.TrimLeft(line[i+1:], " ")
		}
	}
	return "", line
}

// parseCall parses "name(args) = ret …". ok is false for a line that is
// not a call ("+++ exited with 0 +++", "--- SIGURG … ---").
func parseCall(text string) (c call, ok bool, err error) {
	open := strings.IndexByte(text, '(')
	if open <= 0 || !isName(text[:open]) {
		return call{}, false, nil
	}
	c.name = text[:open]
	args, end, err := splitArgs(text, open+1)
	if err != nil {
		return call{}, false, err
	}
	c.args = args
	rest := strings.TrimLeft(text[end:], " ")
	ret, ok := strings.CutPrefix(rest, "= ")
	if !ok {
		return call{}, false, errors.New("no return value")
	}
	fields := strings.Fields(ret)
	if len(fields) == 0 {
		return call{}, false, errors.New("no return value")
	}
	if fields[0] == "?" {
		c.unset = true
		return c, true, nil
	}
	if c.ret, err = parseInt(fields[0]); err != nil {
		return call{}, false, fmt.Errorf("return value: %w", err)
	}
	if c.ret < 0 {
		c.err = "error"
		if len(fields) > 1 {
			c.err = fields[1]
		}
	}
	return c, true, nil
}

// isName reports whether s is a system call name.
func isName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// splitArgs splits the arguments that start at text[from] (just after the
// call's "(") at the commas outside strings, brackets and braces. It
// returns them and the index just after the closing ")".
func splitArgs(text string, from int) (args []string, end int, err error) {
	depth, start := 0, from
	for i := from; i < len(text); i++ {
		switch text[i] {
		case '"':
			j, err := skipString(text, i)
			if err != nil {
				return nil, 0, err
			}
			i = j - 1
		case '[', '{', '(':
			depth++
		case ']', '}':
			depth--
		case ')':
			if depth == 0 {
				if a := strings.TrimSpace(text[start:i]); a != "" || len(args) > 0 {
					args = append(args, a)
				}
				return args, i + 1, nil
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(text[start:i]))
				start = i + 1
			}
		}
	}
	return nil, 0, errors.New("unterminated argument list")
}

// skipString returns the index just after the string literal that starts
// at text[i] (a '"'), and after the "..." strace appends when it cut the
// string short.
func skipString(text string, i int) (int, error) {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			j++
			if strings.HasPrefix(text[j:], "...") {
				j += 3
			}
			return j, nil
		}
	}
	return 0, errors.New("unterminated string")
}

// parseString decodes a string argument as strace prints it: in quotes,
// with C escapes (-xx prints every byte as \xNN). truncated reports the
// "..." strace adds when the string was longer than its -s limit.
func parseString(arg string) (s []byte, truncated bool, err error) {
	if len(arg) < 2 || arg[0] != '"' {
		return nil, false, fmt.Errorf("not a string: %s", clip(arg))
	}
	end, err := skipString(arg, 0)
	if err != nil {
		return nil, false, err
	}
	truncated = strings.HasSuffix(arg[:end], `"...`)
	body := arg[1:end]
	body = body[:strings.LastIndexByte(body, '"')]
	out := make([]byte, 0, len(body)/4)
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			out = append(out, body[i])
			continue
		}
		if i++; i == len(body) {
			return nil, false, errors.New("string ends in a backslash")
		}
		switch c := body[i]; c {
		case 'x':
			if i+3 > len(body) {
				return nil, false, errors.New(`short \x escape`)
			}
			v, err := strconv.ParseUint(body[i+1:i+3], 16, 8)
			if err != nil {
				return nil, false, fmt.Errorf(`bad \x escape: %w`, err)
			}
			out = append(out, byte(v))
			i += 2
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'v':
			out = append(out, '\v')
		case 'f':
			out = append(out, '\f')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			// Octal, one to three digits: strace prints \0 for a NUL that
			// no digit follows.
			v, j := 0, i
			for j < len(body) && j < i+3 && body[j] >= '0' && body[j] <= '7' {
				v = v*8 + int(body[j]-'0')
				j++
			}
			out = append(out, byte(v))
			i = j - 1
		default: // \" \\ and anything else stands for itself
			out = append(out, c)
		}
	}
	return out, truncated, nil
}

// parseInt parses a number as strace prints it: decimal, 0x hex, or 0
// octal (modes).
func parseInt(s string) (int64, error) {
	return strconv.ParseInt(s, 0, 64)
}

// flagSet splits flags printed as "O_WRONLY|O_CREAT|0x8000" into a set.
func flagSet(arg string) map[string]bool {
	set := map[string]bool{}
	for _, f := range strings.Split(arg, "|") {
		set[strings.TrimSpace(f)] = true
	}
	return set
}

// clip shortens a trace line for an error message.
func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
