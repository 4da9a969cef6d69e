package memex

// Error is an error that carries its own sentence: what went wrong, in the
// user's terms, and a hint of what to do, with the class of error (one of
// the sentinels above) it matches with errors.Is. The CLI prints What and
// Hint as they are; the HTTP API sends them as "message" and "hint" with
// the class's code, and api.Client rebuilds the same Error from them, so
// an error reads the same whether the store was local or served.
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

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.What
	}
	return e.What + " (" + e.Hint + ")"
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
