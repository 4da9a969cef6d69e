package service

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/memory"
)

// Experience memory (package memory) follows the archive: the lessons and
// procedures of a session are distilled again after every import that adds
// to it and after every captured run that passed or failed.

// SessionsAdded makes opts report the sessions the import adds entries
// to, keeping its own Added; the returned function lists them.
func SessionsAdded(opts *ingest.Options) func() []memex.SessionRef {
	seen := map[memex.SessionRef]bool{}
	var refs []memex.SessionRef
	next := opts.Added
	opts.Added = func(e memex.Entry, body []byte) {
		if ref := e.SessionRef(); ref.Session != "" && ref.Project != "" && !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
		if next != nil {
			next(e, body)
		}
	}
	return func() []memex.SessionRef { return refs }
}

// Distill brings the lessons and procedures of refs up to date; the
// lessons it adds are indexed through added (nil: the next search's
// catch-up indexes them), those it replaces are dropped from ix (nil: a
// search drops them when it meets them).
func Distill(ctx context.Context, s *archive.Store, ix *index.Index, refs []memex.SessionRef, added func(memex.Entry, []byte)) (memory.UpdateReport, error) {
	if len(refs) == 0 {
		return memory.UpdateReport{}, nil
	}
	rep, err := memory.Update(ctx, s, refs, memory.UpdateOptions{Added: added})
	if err == nil && ix != nil && len(rep.Removed) > 0 {
		err = ix.Delete(ctx, rep.Removed...)
	}
	if err != nil {
		return rep, fmt.Errorf("entries archived, distilling lessons failed (memex distill retries): %w", err)
	}
	return rep, nil
}

// IngestDistilled imports as opts says, with the write policy (Policy),
// then distils the sessions that gained entries (their new lessons are
// indexed by the next catch-up).
func IngestDistilled(ctx context.Context, s *archive.Store, opts ingest.Options) (ingest.Report, error) {
	opts.Policy = Policy
	rep, _, err := ingestThenDistill(ctx, s, opts, nil, nil)
	return rep, err
}

// ingestThenDistill imports as opts says, then distils the sessions that
// gained entries (Distill with ix and added), unless the import failed.
func ingestThenDistill(ctx context.Context, s *archive.Store, opts ingest.Options, ix *index.Index, added func(memex.Entry, []byte)) (ingest.Report, memory.UpdateReport, error) {
	refs := SessionsAdded(&opts)
	if opts.Prepare == nil {
		opts.Prepare = func(e memex.Entry, body []byte) io.Reader { return s.Prepare(e, body) }
	}
	rep, err := ingest.Run(ctx, s, opts)
	if err != nil {
		return rep, memory.UpdateReport{}, err
	}
	drep, err := Distill(ctx, s, ix, refs(), added)
	return rep, drep, err
}

// DistillRun distils the session of e, a captured tool call just
// archived, when e is a run that passed or failed: a live session's
// lessons and procedures follow it call by call (the next catch-up
// indexes its lessons), not only when its transcript is imported.
func DistillRun(ctx context.Context, s *archive.Store, e memex.Entry) error {
	if !memory.Decisive(e) {
		return nil
	}
	_, err := Distill(ctx, s, nil, []memex.SessionRef{e.SessionRef()}, nil)
	return err
}

// Distilling is svc, whose Adds are archived in s, with the lessons of a
// session distilled again after a run is added to it (DistillRun). A
// failure to distil is logged: the entry is archived, memex distill
// retries.
func Distilling(svc api.Service, s *archive.Store, log *slog.Logger) api.Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return distilling{svc, s, log}
}

type distilling struct {
	api.Service
	s   *archive.Store
	log *slog.Logger
}

func (d distilling) Add(ctx context.Context, req api.AddRequest) (memex.Entry, error) {
	got, err := d.Service.Add(ctx, req)
	if err == nil {
		if derr := DistillRun(ctx, d.s, got); derr != nil {
			d.log.Warn("distill", "id", got.ID, "err", derr)
		}
	}
	return got, err
}

// DistillAll distils again, from the archive, every session (of project
// only, when it is not ""), as memex distill does, and brings ix up to
// date with the lessons added.
func DistillAll(ctx context.Context, s *archive.Store, ix *index.Index, project string) (memory.UpdateReport, error) {
	infos, err := s.Sessions(ctx)
	if err != nil {
		return memory.UpdateReport{}, err
	}
	var refs []memex.SessionRef
	for _, in := range infos {
		if project == "" || in.Project == project {
			refs = append(refs, in.SessionRef)
		}
	}
	rep, err := Distill(ctx, s, ix, refs, nil)
	if err != nil {
		return rep, err
	}
	_, err = catchup.CatchUp(ctx, s, ix)
	return rep, err
}
