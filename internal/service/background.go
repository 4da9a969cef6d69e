package service

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
)

// BackgroundOptions configure Background.
type BackgroundOptions struct {
	// Formats are imported from their default locations at once and then
	// every Every (memex serve --ingest); none imports nothing.
	Formats []ingest.Format
	Every   time.Duration
	// Options are those of the Service the spool is drained through.
	Options Options
	// Logger gets what fails in the background; nil discards it.
	Logger *slog.Logger
}

// Background is the work a server that holds h does beside answering,
// until ctx is done: the index follows the archive (catchup.Follow); each
// round the spool that hooks and runs left while the store was taken is
// drained, since the server holds the store for good; and the hosts'
// transcripts of o.Formats are imported through svc, incrementally (a
// round reads only what the files gained).
func Background(ctx context.Context, h *home.Home, svc api.Service, o BackgroundOptions) error {
	ix, err := h.Index()
	if err != nil {
		return err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		catchup.Follow(ctx, h.Store, ix, catchup.FollowOptions{
			OnError: func(err error) { log.Warn("index catch-up", "err", err) },
			OnRound: func(st catchup.Stats) {
				if err := DrainSpool(ctx, h, o.Options); err != nil {
					log.Warn("spool", "err", err)
				}
				if st.Indexed+st.Deleted > 0 {
					log.Debug("index caught up", "indexed", st.Indexed, "deleted", st.Deleted)
				}
			},
		})
	})
	if len(o.Formats) > 0 {
		wg.Go(func() { importLoop(ctx, svc, o.Formats, o.Every, log) })
	}
	wg.Wait()
	return nil
}

// importLoop imports formats from their default locations at once and
// then every interval, until ctx is done; the index follows the archive.
func importLoop(ctx context.Context, svc api.Service, formats []ingest.Format, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, f := range formats {
			rep, err := svc.Ingest(ctx, api.IngestRequest{Format: string(f), NoIndex: true})
			switch {
			case err != nil && ctx.Err() == nil:
				log.Warn("background import", "format", f, "err", err)
			case err == nil:
				log.Debug("background import", "format", f, "files", rep.Files, "added", rep.Added)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Watchable lists the formats a server can import in the background:
// those with default locations to read.
func Watchable() []ingest.Format {
	var out []ingest.Format
	for _, f := range ingest.Formats {
		if len(ingest.DefaultPaths(f, "")) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// WatchFormats parses the names of the formats a server imports in the
// background (BackgroundOptions.Formats, memex serve --ingest): each must
// be Watchable, the others having no default location to read. A name
// given twice is read once; empty ones are skipped. A name refused is
// memex.ErrInvalid, with the formats taken in its hint.
func WatchFormats(names []string) ([]ingest.Format, error) {
	taken := "the formats imported in the background are " + ingest.FormatList(Watchable())
	var formats []ingest.Format
	for _, name := range names {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		f, err := ingest.ParseFormat(name)
		if err != nil {
			return nil, memex.Errorf(memex.ErrInvalid, "%q: not a transcript format", name).WithHint(taken)
		}
		if !slices.Contains(Watchable(), f) {
			return nil, memex.Errorf(memex.ErrInvalid, "%s: that format has no default location to read", f).
				WithHint(fmt.Sprintf("import %s files with memex ingest %s PATH or POST /v1/ingest; %s", f, f, taken))
		}
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	return formats, nil
}

// IngestRoots are the directories POST /v1/ingest reads from
// (api.Options.IngestRoots): every format's default locations and extra,
// made absolute.
func IngestRoots(extra []string) []string {
	var roots []string
	for _, f := range ingest.Formats {
		roots = append(roots, ingest.DefaultPaths(f, "")...)
	}
	for _, r := range extra {
		if abs, err := filepath.Abs(r); err == nil {
			roots = append(roots, abs)
		}
	}
	return roots
}
