package main

import (
	"fmt"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/service"
)

// noteReplaced says on stderr that n credentials were replaced in what was
// just archived.
func (a *app) noteReplaced(n int) {
	if n > 0 {
		fmt.Fprintf(a.stderr, "memex: %s: replaced with [REDACTED:kind] (--no-redact keeps them)\n", memex.RedactedNote(n))
	}
}

// redactBytes applies the write policy (service.Policy) to a body held in
// memory (a hook's, which may be spooled before it is stored): the
// returned entry counts every replacement, the body's included.
func redactBytes(e memex.Entry, body []byte) (memex.Entry, []byte) {
	e, body, _ = service.Policy(e, body)
	return e, body
}
