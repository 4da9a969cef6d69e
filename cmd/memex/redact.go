package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/redact"
)

// redactWrite applies the write policy (redact.Entry) to what an entry is
// about to store: its fields now, its body as the archive reads it (in
// bounded memory). Every write path goes through it before the archive
// sees a byte: add, run, the HTTP API and the MCP tools (ingest and the
// hooks apply redact.Entry in their own packages). The archive adds the
// body's count to the stored entry's Redacted.
func redactWrite(e *memex.Entry, body io.Reader) io.Reader {
	var r *redact.Reader
	*e, r = redact.Entry(*e, body)
	return r
}

// redactingStore is the archive as the API writes to it: redacted, and
// the lessons of a session distilled again after a run (distillRun).
type redactingStore struct {
	*archive.Store
	log *slog.Logger
}

func (r redactingStore) Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	if !api.NoRedact(ctx) {
		body = redactWrite(&e, body)
	}
	got, err := r.Store.Add(ctx, e, body)
	if err == nil {
		if derr := distillRun(ctx, r.Store, got); derr != nil {
			r.log.Warn("distill", "id", got.ID, "err", derr) // the entry is archived: memex distill retries
		}
	}
	return got, err
}

// redacting is redactWrite for the CLI: off (--no-redact) passes the body
// through, and done reports the stored entry's replacements on stderr.
func (a *app) redacting(e *memex.Entry, body io.Reader, off bool) (io.Reader, func(memex.Entry)) {
	if off {
		return body, func(memex.Entry) {}
	}
	return redactWrite(e, body), func(got memex.Entry) {
		if got.Redacted > 0 {
			fmt.Fprintf(a.stderr, "memex: %s: replaced with [REDACTED:kind] (--no-redact keeps them)\n", memex.RedactedNote(got.Redacted))
		}
	}
}

// redactBytes is redactWrite for a body held in memory (a hook's, which
// may be spooled before it is stored): the returned entry counts every
// replacement, the body's included.
func redactBytes(e memex.Entry, body []byte) (memex.Entry, []byte) {
	e, body, _ = redact.Bytes(e, body)
	return e, body
}
