package main

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
	if errors.As(err, &me) && out.Code != "usage" && !errors.Is(err, context.Canceled) {
		// The hint on its own, as the HTTP API's error body has it.
		out.Error, out.Hint = me.What, me.Hint
	}
	b, _ := json.Marshal(out)
	fmt.Fprintf(stderr, "%s\n", b)
	return code
}

// userMessage is what the CLI says of err: its sentence (memex.Sentence:
// the words of the *memex.Error it carries, as the HTTP API sends them, so
// a served command prints what a local one does).
func userMessage(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return memex.Sentence(err)
}
