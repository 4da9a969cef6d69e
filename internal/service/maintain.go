package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
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
	if req.DryRun {
		ids, err := forgetSelect(ctx, s, req)
		return api.ForgetResult{Matched: len(ids)}, err
	}
	ix, err := m.Home.Index()
	if err != nil {
		return api.ForgetResult{}, err
	}
	// A forget that was interrupted is finished first: run again as
	// its --help says, it may find nothing left of what it names.
	unfinishedForget.Delete(s)
	finished, err := finishForget(ctx, s, ix)
	if err != nil {
		return api.ForgetResult{}, err
	}
	ids, err := forgetSelect(ctx, s, req)
	if errors.Is(err, memex.ErrNotFound) && finished > 0 {
		return api.ForgetResult{Forgotten: finished}, nil
	}
	if err != nil {
		return api.ForgetResult{}, err
	}
	if _, err := catchup.CatchUp(ctx, s, ix); err != nil {
		return api.ForgetResult{}, err
	}
	if err := forgetEntries(ctx, s, ix, ids, forgetIDs); err != nil {
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
	case req.Agent != "" && req.Session == "":
		// Dropped, the agent would widen what is forgotten to every
		// agent's entries of the project (or the IDs alone).
		return nil, fmt.Errorf("forget: %w", memex.Errorf(memex.ErrInvalid, "agent narrows a session: give the session too"))
	case len(req.Refs) > 0:
		for _, ref := range req.Refs {
			id, err := s.Resolve(ctx, ref, "")
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
	case req.Session != "":
		ref := memex.SessionRef{Session: req.Session, Project: req.Project, Agent: req.Agent}
		err = s.Session(ctx, ref, func(e memex.Entry) error { ids = append(ids, e.ID); return nil })
		if errors.Is(err, memex.ErrNotFound) {
			// Other commands take the first characters of a name (memex
			// sessions shows a UUID so); forget, which cannot be undone,
			// takes the whole name, and says which it would be.
			if full, rerr := s.ResolveSession(ctx, ref); rerr == nil && full.Session != ref.Session {
				return nil, fmt.Errorf("forget: %w", memex.Errorf(memex.ErrNotFound, "no session named %q", ref.Session).
					WithHint(fmt.Sprintf("forget takes a session's whole name: memex forget --session %s", full.Session)))
			}
		}
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

// forgetState names the store's state a forget keeps while it runs (a
// forgetJournal): set before its first delete, removed once neither the
// archive, nor the index, nor a lesson holds the entries. A forget or a
// search that finds it finishes that forget first (finishForget): a crash
// between the archive's delete and the index's left the entries' terms in
// the index for good, and their lessons citing them.
const forgetState = "forget"

// forgetJournal is what finishing a forget needs: the IDs, and what
// memory.Forgotten needs of the entries (memory.Forgettable).
type forgetJournal struct {
	IDs  []memex.ID    `json:"ids"`
	Gone []memex.Entry `json:"gone"`
}

// forgetting serialises forgets in a process: a server's searches may
// each find the same unfinished one.
var forgetting sync.Mutex

// unfinishedForget holds the stores (*archive.Store) whose interrupted
// forget a search failed to finish: searches leave it to memex forget,
// which tries again and clears the mark.
var unfinishedForget sync.Map

// forgetIDs deletes ids from the archive and the index and purges both;
// IDs an earlier, interrupted run deleted from the archive already are
// not an error.
func forgetIDs(ctx context.Context, s *archive.Store, ix *index.Index, ids []memex.ID) error {
	if err := catchup.Forget(ctx, s, ix, ids...); err != nil && !errors.Is(err, memex.ErrNotFound) {
		return err
	}
	return nil
}

// forgetEntries forgets ids, and whatever an interrupted forget left in
// the journal, with forget (forgetIDs), and then distils their sessions
// again, so that no lesson or procedure cites them.
func forgetEntries(ctx context.Context, s *archive.Store, ix *index.Index, ids []memex.ID,
	forget func(context.Context, *archive.Store, *index.Index, []memex.ID) error) error {
	forgetting.Lock()
	defer forgetting.Unlock()
	j, err := readForgetJournal(ctx, s)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if e, err := s.Get(ctx, id); err == nil {
			j.Gone = append(j.Gone, memory.Forgettable(e))
		}
	}
	j.IDs = append(j.IDs, ids...)
	if len(j.IDs) == 0 {
		return nil
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := s.SetState(ctx, forgetState, b); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	if err := forget(ctx, s, ix, j.IDs); err != nil {
		return err
	}
	rep, err := memory.Forgotten(ctx, s, j.Gone, memory.UpdateOptions{})
	if err == nil && len(rep.Removed) > 0 {
		err = ix.Delete(ctx, rep.Removed...)
	}
	if err != nil {
		return fmt.Errorf("forget: entries forgotten, updating the lessons that cite them failed (memex distill retries): %w", err)
	}
	if err := s.DeleteState(ctx, forgetState); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	return nil
}

// readForgetJournal returns the journal an unfinished forget left, or an
// empty one.
func readForgetJournal(ctx context.Context, s *archive.Store) (forgetJournal, error) {
	var j forgetJournal
	b, err := s.GetState(ctx, forgetState)
	switch {
	case errors.Is(err, memex.ErrNotFound):
		return j, nil
	case err != nil:
		return j, fmt.Errorf("forget: %w", err)
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("forget: the journal of an interrupted forget: %w", err)
	}
	return j, nil
}

// finishForget finishes the forget an interrupted one left, if any, and
// returns how many entries it named.
func finishForget(ctx context.Context, s *archive.Store, ix *index.Index) (int, error) {
	j, err := readForgetJournal(ctx, s)
	if err != nil || len(j.IDs) == 0 {
		return 0, err
	}
	return len(j.IDs), forgetEntries(ctx, s, ix, nil, forgetIDs)
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
	if j, err := readForgetJournal(ctx, s); err != nil || len(j.IDs) > 0 {
		msg := fmt.Sprintf("a forget of %s was interrupted: the next memex forget or search finishes it (memex forget again says what stops it)",
			summarize.Plural(len(j.IDs), "entry"))
		if err != nil {
			msg = err.Error() + ": memex forget again clears it"
		}
		res.Files = append(res.Files, api.Problem{Path: filepath.Join(dir, home.StoreDir), Message: msg})
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
