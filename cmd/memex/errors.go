package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memex-archive/memex"
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
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "memex: %s\n", ue.msg)
		return exitUsage
	}
	fmt.Fprintf(stderr, "memex: %s\n", userMessage(err))
	return exitFailure
}

// userMessage shortens internal error chains to what a user acts on.
func userMessage(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, memex.ErrNotFound):
		// "archive: read 01J...: not found" reads better without the package.
		return strings.TrimPrefix(err.Error(), "archive: ")
	}
	return err.Error()
}
