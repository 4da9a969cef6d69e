package service

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

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

// DrainWait bounds how long a reader waits for the store's lock to
// archive the spool before it reads (OpenHome): the other holders are
// readers, done in moments, or a drain, which the read then waits for as
// any reader waits for a writer.
const DrainWait = time.Second

// OpenHome opens the home at dir with o, what its spool holds archived
// first, so that what a hook or a run spooled is there to read. A writer
// archives the spool once it holds the store. A reader (o.Shared) that
// finds work in the spool first opens the store for writing, waiting up
// to DrainWait for the lock, archives the spool and lets go, then opens
// for reading as o says; when it cannot write (a read-only home, a full
// disk, a damaged log, the lock still taken) it reads what is archived,
// and the spool waits, durable, for the next process that writes. A
// writer's open that fails is OpenHome's error; a reader's drain that
// fails is only logged. o.AsFound leaves a reader's spool as it is.
func OpenHome(ctx context.Context, dir string, o home.Options, so Options) (*home.Home, error) {
	if o.Shared && !o.AsFound && spool.Pending(dir) {
		// Unsynced but for the syncs of the drain itself, as memex
		// hook's drain opens it.
		w := o
		w.Shared, w.MustExist, w.NoSync, w.OnWait = false, false, true, nil
		if w.Wait == 0 || w.Wait > DrainWait { // a negative Wait stays: no wait
			w.Wait = DrainWait
		}
		if h, err := home.Open(ctx, dir, w); err != nil {
			logOf(so).Debug("spool left for a writer", "err", err)
		} else {
			drainLogged(ctx, h, so)
			if err := h.Close(); err != nil {
				logOf(so).Warn("spool", "err", err)
			}
		}
	}
	h, err := home.Open(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	if !h.Shared() { // o.OnFull may have opened it for reading
		drainLogged(ctx, h, so)
	}
	return h, nil
}

// drainLogged archives h's spool, logging what fails: the command goes on.
func drainLogged(ctx context.Context, h *home.Home, so Options) {
	if err := DrainSpool(ctx, h, so); err != nil {
		logOf(so).Warn("spool", "err", err)
	}
}

func logOf(so Options) *slog.Logger {
	if so.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return so.Logger
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
			f := ingest.Format(format)
			_, err := IngestDistilled(ctx, h.Store, ingest.Options{Format: f, Paths: ingest.SessionPaths(f, path)})
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
