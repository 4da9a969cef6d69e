package service

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/spool"
	"github.com/memex-archive/memex/memory"
)

// Capture archives through svc a tool call a hook captured (hosts.ToolEntry),
// unless the call is archived already under its key: a transcript import
// got there first, as it can when the host runs the hook in the
// background. It returns the stored entry, or the zero entry (ID zero)
// when the call was archived already. svc applies the write policy.
func Capture(ctx context.Context, svc api.Service, e memex.Entry, body []byte) (memex.Entry, error) {
	if captured(ctx, svc, hosts.Key(e)) {
		return memex.Entry{}, nil
	}
	return svc.Add(ctx, api.AddRequest{Entry: e, Body: bytes.NewReader(body)})
}

// captured reports whether svc holds an entry under key. Any answer but
// the entry's (or several) is taken for no: better a call archived twice
// than lost.
func captured(ctx context.Context, svc api.Service, key string) bool {
	if key == "" {
		return false
	}
	_, err := svc.Entry(ctx, key, "")
	return err == nil || errors.Is(err, memex.ErrAmbiguous)
}

// OpenHome opens the home at dir with ho, as a memex process that may
// write does: opened for writing, it first archives what hooks and runs
// spooled while the store was taken (DrainSpool), a failure of which is
// logged to o.Logger, not returned, since the home is open and usable.
func OpenHome(ctx context.Context, dir string, ho home.Options, o Options) (*home.Home, error) {
	h, err := home.Open(ctx, dir, ho)
	if err != nil {
		return nil, err
	}
	if !ho.Shared {
		if err := DrainSpool(ctx, h, o); err != nil && o.Logger != nil {
			o.Logger.Warn("spool", "err", err)
		}
	}
	return h, nil
}

// DrainSpool does the work of h's spool (spool.Drain) over h's store:
// spooled entries stored as they were spooled, unless archived already
// under their ID or capture key, in one batch made durable by one sync
// before their items go; the sessions of the runs among them distilled
// once each, after the batch (not once per run, as an Add through New
// does); transcripts imported, their sessions distilled.
func DrainSpool(ctx context.Context, h *home.Home, o Options) error {
	// The entries went through the write policy when they were spooled,
	// and their runs are distilled after the batch: the Service without
	// New's decorators.
	batch := local(h, o)
	var runs []memex.SessionRef
	seen := map[memex.SessionRef]bool{}
	d := spool.Drainer{
		Archived: func(ctx context.Context, e memex.Entry) (bool, error) {
			if _, err := batch.Entry(ctx, e.ID.String(), ""); !errors.Is(err, memex.ErrNotFound) {
				return true, nil
			}
			return captured(ctx, batch, hosts.Key(e)), nil
		},
		Add: func(ctx context.Context, e memex.Entry, body io.Reader) error {
			got, err := batch.Add(ctx, api.AddRequest{Entry: e, Body: body, NoRedact: true})
			if ref := got.SessionRef(); err == nil && memory.Decisive(got) && !seen[ref] {
				seen[ref] = true
				runs = append(runs, ref)
			}
			return err
		},
		Ingest: func(ctx context.Context, format, path string) error {
			_, err := IngestDistilled(ctx, h.Store, ingest.Options{Format: ingest.Format(format), Paths: []string{path}})
			return err
		},
		Sync: h.Store.Sync,
	}
	if o.Logger != nil {
		d.Log = func(p string, err error) { o.Logger.Warn("spool", "file", p, "err", err) }
	}
	err := spool.Drain(ctx, h.Dir, d)
	if _, derr := Distill(ctx, h.Store, nil, runs, nil); derr != nil && o.Logger != nil {
		o.Logger.Warn("distill", "err", derr)
	}
	return err
}
