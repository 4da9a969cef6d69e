package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
)

// Exit codes: 0 ok, 1 failure, 2 usage. A command run by `memex run`
// passes its own status through.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// UsageError marks a malformed command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitStatus asks main to exit with a code, printing Err as any error is
// printed (a JSON line with --json), or nothing when Err is nil (the
// command already said what it had to).
type ExitStatus struct {
	Code int
	Err  error
}

func (e *ExitStatus) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e *ExitStatus) Unwrap() error { return e.Err }

// Exit is an ExitStatus of code.
func Exit(code int) error { return &ExitStatus{Code: code} }

// ExitWith is an ExitStatus of code that prints err (memex run: a command
// that did not start, an output left spooled, with the command's status).
func ExitWith(code int, err error) error { return &ExitStatus{Code: code, Err: err} }

// JSONError is the error of a command run with --json: ExitCode prints it
// as {"error": MESSAGE, "code": CODE} (and "hint" when it has one) on
// stderr, one line, where MESSAGE is what the command prints without
// --json and CODE the HTTP API's code for it ("not_found", "invalid",
// "busy", ...; "usage" for a malformed command line).
type JSONError struct{ Err error }

func (e *JSONError) Error() string { return e.Err.Error() }
func (e *JSONError) Unwrap() error { return e.Err }

// ExitCode maps an error to the process exit code and prints it, once, in
// the one place that does so.
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var st *ExitStatus
	if errors.As(err, &st) {
		if st.Err != nil {
			var je *JSONError
			if errors.As(err, &je) {
				printJSONError(st.Err, stderr)
			} else {
				fmt.Fprintf(stderr, "memex: %s\n", Message(st.Err))
			}
		}
		return st.Code
	}
	var je *JSONError
	if errors.As(err, &je) {
		return printJSONError(je.Err, stderr)
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "memex: %s\n", ue.Msg)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "memex: %s\n", Message(err))
	return ExitFailure
}

func printJSONError(err error, stderr io.Writer) int {
	out := struct {
		Error string `json:"error"`
		Code  string `json:"code"`
		Hint  string `json:"hint,omitempty"`
	}{Code: api.Code(err)}
	code := ExitFailure
	var ue *UsageError
	if errors.As(err, &ue) {
		out.Error, out.Code, code = ue.Msg, "usage", ExitUsage
	} else {
		out.Error = Message(err)
	}
	var me *memex.Error
	if errors.As(err, &me) && out.Code != "usage" && !bareInterruption(err) {
		// The hint on its own, as the HTTP API's error body has it.
		out.Error, out.Hint = me.What, me.Hint
	}
	b, _ := json.Marshal(out)
	fmt.Fprintf(stderr, "%s\n", b)
	return code
}

// Message is what the CLI says of err: its sentence (memex.Sentence:
// the words of the *memex.Error it carries, as the HTTP API sends them, so
// a served command prints what a local one does).
func Message(err error) string {
	if bareInterruption(err) {
		return "interrupted"
	}
	return memex.Sentence(err)
}

// bareInterruption reports whether err is a cancellation that says
// nothing of its own (what a stopped import kept, say): told as
// "interrupted", in text and in --json alike.
func bareInterruption(err error) bool {
	var me *memex.Error
	return errors.Is(err, context.Canceled) && !(errors.As(err, &me) && me.What != "")
}
