package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/redact"
)

// distilling is the server's Service: the lessons of a session are
// distilled again after a run is added (distillRun).
type distilling struct {
	api.Service
	s   *archive.Store
	log *slog.Logger
}

func (d distilling) Add(ctx context.Context, req api.AddRequest) (memex.Entry, error) {
	got, err := d.Service.Add(ctx, req)
	if err == nil {
		if derr := distillRun(ctx, d.s, got); derr != nil {
			d.log.Warn("distill", "id", got.ID, "err", derr) // the entry is archived: memex distill retries
		}
	}
	return got, err
}

// noteReplaced says on stderr that n credentials were replaced in what was
// just archived.
func (a *app) noteReplaced(n int) {
	if n > 0 {
		fmt.Fprintf(a.stderr, "memex: %s: replaced with [REDACTED:kind] (--no-redact keeps them)\n", memex.RedactedNote(n))
	}
}

// redactBytes is redactWrite for a body held in memory (a hook's, which
// may be spooled before it is stored): the returned entry counts every
// replacement, the body's included.
func redactBytes(e memex.Entry, body []byte) (memex.Entry, []byte) {
	e, body, _ = redact.Bytes(e, body)
	return e, body
}
