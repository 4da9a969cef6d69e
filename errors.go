package memex

import (
	"errors"
	"fmt"
	"syscall"
)

// Error is an error that carries its own sentence: what went wrong, in the
// user's terms, and a hint of what to do, with the class of error (one of
// the sentinels of memex.go) it matches with errors.Is. The layers an
// Error passes on its way out may wrap it with their context (for logs);
// what a person reads is Sentence, the Error's own words, whatever the
// wrapping. The CLI prints Sentence; the HTTP API sends What and Hint as
// "message" and "hint" with the class's code, and api.Client rebuilds
// the same Error from them, so an error reads the same whether the store
// was local or served.
type Error struct {
	// Kind is the class: ErrNotFound, ErrInvalid, ... (nil: none of them).
	Kind error
	// What says what went wrong ("session \"x\": not found").
	What string
	// Hint says what to do about it ("memex sessions lists them"); may be
	// empty.
	Hint string
	// Err is the cause, when there is one beside Kind.
	Err error
}

// Errorf returns an Error of kind whose What is the formatted sentence.
// format has no %w: the cause, if any, goes in Err.
func Errorf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, What: fmt.Sprintf(format, args...)}
}

// WithHint sets e's Hint and returns e.
func (e *Error) WithHint(hint string) *Error {
	e.Hint = hint
	return e
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.What
	}
	return e.What + "; " + e.Hint
}

// Unwrap gives errors.Is and errors.As the class and the cause.
func (e *Error) Unwrap() []error {
	var out []error
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// Sentence is what err says to a person: the sentence of the outermost
// *Error in its chain (What, then "; " and Hint), without the
// context the layers above wrapped it in; err.Error() when the chain
// holds no *Error.
func Sentence(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}

// IsDiskFull reports whether err is a write that met a full disk (ENOSPC,
// EDQUOT) or already says so (ErrDiskFull). The store and the spool both
// ask it; the spool cannot import the store (memex-hook links the spool
// and not Pebble).
func IsDiskFull(err error) bool {
	return errors.Is(err, ErrDiskFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
