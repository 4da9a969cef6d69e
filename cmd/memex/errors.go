package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
)

// Exit codes: 0 ok, 1 failure, 2 usage. A command run by `memex run`
// passes its own status through.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks a malformed command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitStatus asks main to exit with a code without printing anything (the
// command already said what it had to).
type exitStatus struct{ code int }

func (e *exitStatus) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// jsonError is the error of a command run with --json: exitCode prints it
// as {"error": MESSAGE, "code": CODE} (and "hint" when it has one) on
// stderr, one line, where MESSAGE is what the command prints without
// --json and CODE the HTTP API's code for it ("not_found", "invalid",
// "busy", ...; "usage" for a malformed command line).
type jsonError struct{ err error }

func (e *jsonError) Error() string { return e.err.Error() }
func (e *jsonError) Unwrap() error { return e.err }

// exitCode maps an error to the process exit code and prints it, once, in
// the one place that does so.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var st *exitStatus
	if errors.As(err, &st) {
		return st.code
	}
	var je *jsonError
	if errors.As(err, &je) {
		return printJSONError(je.err, stderr)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "memex: %s\n", ue.msg)
		return exitUsage
	}
	fmt.Fprintf(stderr, "memex: %s\n", userMessage(err))
	return exitFailure
}

func printJSONError(err error, stderr io.Writer) int {
	out := struct {
		Error string `json:"error"`
		Code  string `json:"code"`
		Hint  string `json:"hint,omitempty"`
	}{Code: api.Code(err)}
	code := exitFailure
	var ue *usageError
	if errors.As(err, &ue) {
		out.Error, out.Code, code = ue.msg, "usage", exitUsage
	} else {
		out.Error = userMessage(err)
	}
	var me *memex.Error
	if errors.As(err, &me) && me.Hint != "" {
		out.Hint = me.Hint
	}
	b, _ := json.Marshal(out)
	fmt.Fprintf(stderr, "%s\n", b)
	return code
}

// userMessage shortens internal error chains to what a user acts on.
func userMessage(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, memex.ErrNotFound):
		return notFoundMessage(err)
	}
	return err.Error()
}

// notFoundMessage words a not-found error as one plain sentence: what was
// not found, as the innermost error that says so puts it, without the
// "pkg: op:" prefixes that each layer on the way out adds:
//
//	deref: context: archive: session "x": not found  ->  session "x": not found
//	deref: show 01J...: archive: 01J...: not found     ->  01J...: not found
//
// An outer layer's words stay when they say more than a package or an
// operation on something the inner message names already (a server's
// address, what was done before the failure).
func notFoundMessage(err error) string {
	var kept []string
	e := err
	for {
		u := errors.Unwrap(e)
		if u == nil || u == memex.ErrNotFound || !errors.Is(u, memex.ErrNotFound) {
			break
		}
		inner := u.Error()
		if prefix, ok := strings.CutSuffix(e.Error(), inner); ok {
			for _, seg := range strings.Split(strings.TrimSuffix(prefix, ": "), ": ") {
				if seg != "" && !bareWord(seg) && !restates(seg, inner) {
					kept = append(kept, seg)
				}
			}
		}
		e = u
	}
	// e is the error that wraps the sentinel itself (or one that holds it
	// some other way, such as a server's answer): keep at least the
	// segment that names what is missing.
	segs := strings.Split(e.Error(), ": ")
	for len(segs) > 2 && bareWord(segs[0]) {
		segs = segs[1:]
	}
	return strings.Join(append(kept, segs...), ": ")
}

// bareWord reports whether seg is one lowercase word: a package name
// ("archive") or an operation ("context") in an error chain.
func bareWord(seg string) bool {
	if seg == "" {
		return false
	}
	for _, r := range seg {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// restates reports whether seg is an operation on something inner names
// already ("show 01J..." over "01J...: not found").
func restates(seg, inner string) bool {
	op, arg, ok := strings.Cut(seg, " ")
	return ok && bareWord(op) && !strings.Contains(arg, " ") && strings.Contains(inner, arg)
}
