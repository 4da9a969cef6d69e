package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/spool"
	"github.com/memex-archive/memex/memory"
	"github.com/memex-archive/memex/summarize"
)

// Maintainer does memex forget, verify and reindex over a home: the
// api.Maintainer of New. Progress, when it returns a function, is told
// how a reindex goes.
type Maintainer struct {
	Home     *home.Home
	Progress func() func(done, total int)
}

var _ api.Maintainer = Maintainer{}

func (m Maintainer) Forget(ctx context.Context, req api.ForgetRequest) (api.ForgetResult, error) {
	s := m.Home.Store
	ids, err := forgetSelect(ctx, s, req)
	if err != nil {
		return api.ForgetResult{}, err
	}
	if req.DryRun {
		return api.ForgetResult{Matched: len(ids)}, nil
	}
	ix, err := m.Home.Index()
	if err != nil {
		return api.ForgetResult{}, err
	}
	if _, err := catchup.CatchUp(ctx, s, ix); err != nil {
		return api.ForgetResult{}, err
	}
	if err := forgetEntries(ctx, s, ix, ids, func() error { return catchup.Forget(ctx, s, ix, ids...) }); err != nil {
		return api.ForgetResult{}, err
	}
	return api.ForgetResult{Forgotten: len(ids)}, nil
}

func (m Maintainer) Verify(ctx context.Context) (api.VerifyResult, error) {
	return verifyHome(ctx, m.Home.Store, m.Home.Index, m.Home.Dir)
}

func (m Maintainer) Reindex(ctx context.Context) (api.ReindexResult, error) {
	// An index of another schema is what reindex is for.
	if err := m.Home.DropIndex(false); err != nil {
		return api.ReindexResult{}, err
	}
	ix, err := m.Home.Index()
	if err != nil {
		return api.ReindexResult{}, err
	}
	var progress func(done, total int)
	if m.Progress != nil {
		progress = m.Progress()
	}
	return reindexStore(ctx, m.Home.Store, ix, progress)
}

// forgetSelect resolves what req names: memex forget, locally or through a
// running server.
func forgetSelect(ctx context.Context, s *archive.Store, req api.ForgetRequest) ([]memex.ID, error) {
	var ids []memex.ID
	var err error
	switch {
	case len(req.Refs) > 0 && (req.Session != "" || req.Project != ""):
		return nil, fmt.Errorf("forget: %w", memex.Errorf(memex.ErrInvalid, "name entries, or a session, or a project, not both entries and a session or project"))
	case len(req.Refs) > 0:
		for _, ref := range req.Refs {
			id, err := s.Resolve(ctx, ref, "")
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
	case req.Session != "":
		ref := memex.SessionRef{Session: req.Session, Project: req.Project}
		err = s.Session(ctx, ref, func(e memex.Entry) error { ids = append(ids, e.ID); return nil })
	case req.Project != "":
		err = s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
			if e.Project == req.Project {
				ids = append(ids, e.ID)
			}
			return nil
		})
	default:
		return nil, fmt.Errorf("forget: name entries, a session or a project: %w", memex.ErrInvalid)
	}
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		what := "project " + req.Project
		if req.Session != "" {
			what = fmt.Sprintf("session %q", req.Session)
		}
		return nil, fmt.Errorf("forget: %w", memex.Errorf(memex.ErrNotFound, "no entries for %s: not found", what))
	}
	return ids, nil
}

// forgetEntries forgets ids (catchup.Forget) and then distils their
// sessions again, so that no lesson or procedure cites them.
func forgetEntries(ctx context.Context, s *archive.Store, ix *index.Index, ids []memex.ID, forget func() error) error {
	var gone []memex.Entry
	for _, id := range ids {
		if e, err := s.Get(ctx, id); err == nil {
			gone = append(gone, e)
		}
	}
	if err := forget(); err != nil {
		return err
	}
	rep, err := memory.Forgotten(ctx, s, gone, memory.UpdateOptions{})
	if err == nil && len(rep.Removed) > 0 {
		err = ix.Delete(ctx, rep.Removed...)
	}
	if err != nil {
		return fmt.Errorf("forget: entries forgotten, updating the lessons that cite them failed (memex distill retries): %w", err)
	}
	return nil
}

// verifyHome checks the store's entries, the index (opened by openIndex)
// and the home's files: what memex verify reports, locally or through a
// running server.
func verifyHome(ctx context.Context, s *archive.Store, openIndex func() (*index.Index, error), dir string) (api.VerifyResult, error) {
	res := api.VerifyResult{Problems: []api.Problem{}}
	n, err := s.Verify(ctx, func(p archive.Problem) {
		res.Problems = append(res.Problems, api.Problem{ID: p.ID, Message: p.Message})
	})
	if err != nil {
		return res, err
	}
	res.Checked = n
	if res.Files, err = HomeProblems(dir); err != nil {
		return res, err
	}
	if d := s.Damage(); d != nil {
		res.Files = append(res.Files, api.Problem{Path: filepath.Join(dir, home.StoreDir, d.Log),
			Message: d.Sentence() + "; memex verify --repair keeps the rest and opens the store for writing again"})
	}
	losses, err := s.Losses(ctx)
	if err != nil {
		return res, err
	}
	for _, l := range losses {
		msg := fmt.Sprintf("repaired %s: %s", l.At.Local().Format("2006-01-02 15:04"), l.Sentence())
		res.Notes = append(res.Notes, api.Problem{Path: filepath.Join(dir, home.StoreDir, l.Log), Message: msg})
	}
	ixp, err := indexProblems(ctx, s, openIndex, dir)
	res.Files = append(res.Files, ixp...)
	return res, err
}

// indexProblems checks that the index opens and holds every entry of s that
// is marked indexed.
func indexProblems(ctx context.Context, s *archive.Store, openIndex func() (*index.Index, error), dir string) ([]api.Problem, error) {
	path := filepath.Join(dir, home.IndexDir)
	const fix = "the next search rebuilds it from the archive, or run memex reindex"
	ix, err := openIndex()
	switch {
	case errors.Is(err, memex.ErrNotFound):
		// No index yet: every entry marked indexed is missing.
		if any, err := s.AnyIndexed(ctx); err != nil || !any {
			return nil, err
		}
		return []api.Problem{{Path: path, Message: "no index, and entries of the archive are marked indexed: " + fix}}, nil
	case errors.Is(err, memex.ErrCorrupt), errors.Is(err, memex.ErrSchema):
		return []api.Problem{{Path: path, Message: err.Error() + ": " + fix}}, nil
	case err != nil:
		return nil, err
	}
	cov, err := catchup.CheckCoverage(ctx, s, ix)
	if err != nil {
		return nil, err
	}
	var out []api.Problem
	if cov.Rebuilding {
		out = append(out, api.Problem{Path: path, Message: "a rebuild of the index was interrupted: the next search or memex reindex finishes it"})
	}
	if n := len(cov.Missing); n > 0 {
		out = append(out, api.Problem{Path: path, Message: fmt.Sprintf("%d of %s marked indexed are not in the index, so no search finds them (first %s): %s",
			n, summarize.Plural(cov.Entries-cov.Pending, "entry"), cov.Missing[0], fix)})
	}
	return out, nil
}

// HomeProblems lists the home's files that other users may read and what
// the spool holds that was not archived yet.
func HomeProblems(dir string) ([]api.Problem, error) {
	out := []api.Problem{}
	modes, err := home.Modes(dir)
	if err != nil {
		return nil, err
	}
	for _, m := range modes {
		out = append(out, api.Problem{Path: m.Path, Message: m.Message()})
	}
	left, err := spool.Leftover(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range left {
		msg := "spooled, not archived yet (the next memex command that writes archives it: memex add, run, ingest or a hook)"
		if strings.HasSuffix(p, ".bad") {
			msg = "spooled and unreadable: kept for you to look at, then remove"
		}
		out = append(out, api.Problem{Path: p, Message: msg})
	}
	return out, nil
}

// reindexStore rebuilds ix from s: memex reindex, locally or through a
// running server.
func reindexStore(ctx context.Context, s *archive.Store, ix *index.Index, progress func(done, total int)) (api.ReindexResult, error) {
	// Indexing allocates at a high rate; a bulk rebuild spends a third
	// less CPU with a larger heap target (measured in
	// index.BenchmarkIndexCorpora, see docs/search.md).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	st, err := catchup.Reindex(ctx, s, ix, progress)
	return api.ReindexResult{Indexed: st.Indexed, NoContent: st.NoContent}, err
}

// CaughtUp is the index of h brought up to date with the archive (so that
// an entry is searchable as soon as its add returned), for a command that
// reads the index itself (memex eval); what the catch-up had to repair
// is logged. The index of a home opened for reading (a store whose disk
// is full: home.Options.OnFull) is read as it is, as a search reads it.
func CaughtUp(ctx context.Context, h *home.Home, log *slog.Logger) (*index.Index, error) {
	ix, err := h.Index()
	if err != nil || h.Shared() {
		return ix, err
	}
	st, err := catchup.CatchUp(ctx, h.Store, ix)
	if err != nil {
		return nil, err
	}
	if log == nil {
		return ix, nil
	}
	switch {
	case st.Resumed:
		log.Warn("index: finished the rebuild that an interrupted memex reindex left undone", "indexed", st.Indexed)
	case st.Rebuilt && ix.Recovered() == nil: // a damaged index said so as it was dropped
		log.Warn("index: it held no entry of the archive; rebuilt from the archive", "indexed", st.Indexed)
	case st.Indexed > 0:
		log.Debug("index caught up", "indexed", st.Indexed, "deleted", st.Deleted)
	}
	return ix, nil
}
