package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/redact"
)

// redactWrite replaces credentials in what an entry is about to store: its
// body (streamed, in bounded memory), its input and the caller's summary.
// Every write path goes through it before the archive sees a byte: add,
// run, the HTTP API and the MCP tools (ingest and the hooks redact in their
// own packages). count reports the replacements once the body is read.
func redactWrite(e *memex.Entry, body io.Reader) (out io.Reader, count func() int) {
	n := redactFields(e)
	r := redact.NewReader(body)
	return r, func() int { return n + r.N }
}

// redactFields replaces credentials in the entry's own text fields (the
// tool input and the caller's summary) and returns how many it replaced.
func redactFields(e *memex.Entry) int {
	var a, b int
	e.Input, a, _ = redact.String(e.Input)
	e.AgentSummary, b, _ = redact.String(e.AgentSummary)
	return a + b
}

// redactingStore is the archive as the API writes to it.
type redactingStore struct{ *archive.Store }

func (r redactingStore) Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	body, _ = redactWrite(&e, body)
	return r.Store.Add(ctx, e, body)
}

// redacting is redactWrite for the CLI: off (--no-redact) passes the body
// through, and done reports the replacements on stderr.
func (a *app) redacting(e *memex.Entry, body io.Reader, off bool) (io.Reader, func()) {
	if off {
		return body, func() {}
	}
	out, count := redactWrite(e, body)
	return out, func() {
		if n := count(); n > 0 {
			fmt.Fprintf(a.stderr, "memex: %d secret(s) replaced with [REDACTED:kind] (--no-redact keeps them)\n", n)
		}
	}
}
