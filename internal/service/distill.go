package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

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

// Distill brings the lessons and procedures of refs up to date; the
// lessons it adds are indexed through added (nil: the next search's
// catch-up indexes them), those it replaces are dropped from ix (nil: a
// search drops them when it meets them).
func Distill(ctx context.Context, s *archive.Store, ix *index.Index, refs []memex.SessionRef, added func(memex.Entry, []byte)) (memory.UpdateReport, error) {
	return distill(ctx, s, ix, refs, added, nil)
}

// distill is Distill, with the sessions' entries that known holds taken
// from it instead of read back from the store.
func distill(ctx context.Context, s *archive.Store, ix *index.Index, refs []memex.SessionRef, added func(memex.Entry, []byte), known *addedEntries) (memory.UpdateReport, error) {
	if len(refs) == 0 {
		return memory.UpdateReport{}, nil
	}
	var w memory.Writer = s
	if known != nil && len(known.byID) > 0 {
		w = knownSessions{s, known}
	}
	rep, err := memory.Update(ctx, w, refs, memory.UpdateOptions{Added: added})
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
// The entries the import adds are kept, up to addedBytes, and the
// sessions are distilled from them; only what the import did not add
// (entries archived before, by a hook or an earlier import) is read back.
// So that a large import reads nothing back either, the sessions it has
// added to so far are distilled as soon as what it keeps passes
// distillBatchBytes, between two files (every session of a file the
// writer finished has all of that file's entries), and what it kept of
// them is let go. A session that gains entries again later (a subagent's
// file, another part of a resumed session) is distilled again with the
// rest, which reads its earlier entries back.
//
// A session is marked pending in the store (pendingMarks) before the
// import's first entry of it is added, and the marks go once the import
// has distilled: an import stopped before that (Ctrl-C, a kill, a crash)
// has recorded its files as read, so the next import, which skips them,
// distils the sessions it finds marked first.
func ingestThenDistill(ctx context.Context, s *archive.Store, opts ingest.Options, ix *index.Index, added func(memex.Entry, []byte)) (ingest.Report, memory.UpdateReport, error) {
	b := &distillBatch{known: &addedEntries{byID: map[memex.ID]memex.Entry{}}, seen: map[memex.SessionRef]bool{}}
	pending, err := newPendingMarks(ctx, s)
	if err != nil {
		return ingest.Report{}, memory.UpdateReport{}, err
	}
	cleared := false
	defer func() {
		if !cleared {
			pending.done(ctx, false) // the marks stay for the next import
		}
	}()
	for _, ref := range pending.left {
		b.addRef(ref)
	}
	next := opts.Added
	opts.Added = func(e memex.Entry, body []byte) {
		b.add(e)
		if next != nil {
			next(e, body)
		}
	}
	progress := opts.Progress
	opts.Progress = func(p ingest.Progress) {
		// After each file, on the writer's goroutine: no Add runs now.
		if p.Files > 0 && b.known.bytes >= distillBatchBytes {
			b.flush(ctx, s, ix, added)
		}
		if progress != nil {
			progress(p)
		}
	}
	prepare := opts.Prepare
	if prepare == nil {
		prepare = func(e memex.Entry, body []byte) io.Reader { return s.Prepare(e, body) }
	}
	// Prepare runs before the entry reaches the writer: the mark is in
	// the store's log ahead of the entry.
	opts.Prepare = func(e memex.Entry, body []byte) io.Reader {
		pending.mark(ctx, e.SessionRef())
		return prepare(e, body)
	}
	rep, err := ingest.Run(ctx, s, opts)
	if err == nil {
		err = pending.err
	}
	if err != nil {
		return rep, b.rep, err
	}
	b.flush(ctx, s, ix, added)
	if b.err != nil {
		return rep, b.rep, b.err
	}
	cleared = true
	return rep, b.rep, pending.done(ctx, true)
}

// pendingPrefix begins the names of the store's state (archive.SetState)
// that mark a session an import added to and has not distilled yet; the
// rest of the name is the session's reference in JSON.
const pendingPrefix = "distill-pending/"

// pendingMarks are the marks of one import: those it found (left by an
// import that did not finish) and those it set.
type pendingMarks struct {
	s    *archive.Store
	left []memex.SessionRef

	seen sync.Map // memex.SessionRef: marked, the look-up of every entry after the first

	mu    sync.Mutex
	names map[string]bool // left and set, each held in liveMarks
	err   error           // the first mark that failed
}

// liveMarks counts, per store, the imports of this process that hold each
// mark (found or set): a mark held by an import still running is not a
// left-over for another (two POST /v1/ingest at once), which would distil
// that session and remove its mark while the first import may still add
// to it and then stop before distilling.
var liveMarks = struct {
	sync.Mutex
	n map[*archive.Store]map[string]int
}{n: map[*archive.Store]map[string]int{}}

// hold counts name as held by one more import of s; liveMarks is locked.
func hold(s *archive.Store, name string) {
	m := liveMarks.n[s]
	if m == nil {
		m = map[string]int{}
		liveMarks.n[s] = m
	}
	m[name]++
}

func newPendingMarks(ctx context.Context, s *archive.Store) (*pendingMarks, error) {
	liveMarks.Lock()
	defer liveMarks.Unlock()
	names, err := s.StateNames(ctx, pendingPrefix)
	if err != nil {
		return nil, err
	}
	p := &pendingMarks{s: s, names: map[string]bool{}}
	for _, n := range names {
		if liveMarks.n[s][n] > 0 {
			continue // another import's, running
		}
		var ref memex.SessionRef
		if json.Unmarshal([]byte(strings.TrimPrefix(n, pendingPrefix)), &ref) == nil && ref.Session != "" {
			p.left = append(p.left, ref)
		}
		p.names[n] = true
		hold(s, n)
	}
	return p, nil
}

// mark marks ref pending, once per import; it is safe for concurrent use.
func (p *pendingMarks) mark(ctx context.Context, ref memex.SessionRef) {
	if ref.Session == "" || ref.Project == "" {
		return // not distilled
	}
	if _, ok := p.seen.LoadOrStore(ref, struct{}{}); ok {
		return // every entry of the session but its first: no name, no lock
	}
	j, _ := json.Marshal(ref)
	name := pendingPrefix + string(j)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names[name] || p.err != nil {
		return
	}
	p.names[name] = true
	liveMarks.Lock()
	defer liveMarks.Unlock()
	hold(p.s, name)
	// Without a sync of its own: it is durable once the session's first
	// entry, added after it, is.
	p.err = p.s.SetStateSoon(ctx, name, nil)
}

// done lets go of the import's marks; with clear (the import distilled
// its sessions) it removes those no other running import holds.
func (p *pendingMarks) done(ctx context.Context, clear bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	liveMarks.Lock()
	defer liveMarks.Unlock()
	m := liveMarks.n[p.s]
	var names []string
	for n := range p.names {
		if m[n]--; m[n] > 0 {
			continue
		}
		delete(m, n)
		if clear {
			names = append(names, n)
		}
	}
	if len(m) == 0 {
		delete(liveMarks.n, p.s)
	}
	p.names = nil
	return p.s.DeleteStates(ctx, names)
}

// distillBatchBytes is how much of the entries an import added it keeps
// before it distils their sessions (see ingestThenDistill): half of
// addedBytes, so that the next file's entries fit beside them.
var distillBatchBytes = addedBytes / 2

// distillBatch is what an import keeps for distilling: the entries it
// added since its last batch, the sessions they belong to, and what the
// batches distilled so far.
type distillBatch struct {
	known *addedEntries
	refs  []memex.SessionRef
	seen  map[memex.SessionRef]bool
	rep   memory.UpdateReport
	err   error // the first batch's error: no batch after it
}

func (b *distillBatch) add(e memex.Entry) {
	b.known.add(e)
	b.addRef(e.SessionRef())
}

// addRef has the batch distil ref.
func (b *distillBatch) addRef(ref memex.SessionRef) {
	if ref.Session != "" && ref.Project != "" && !b.seen[ref] {
		b.seen[ref] = true
		b.refs = append(b.refs, ref)
	}
}

// flush distils the sessions of the batch and starts another, unless an
// earlier batch failed.
func (b *distillBatch) flush(ctx context.Context, s *archive.Store, ix *index.Index, added func(memex.Entry, []byte)) {
	if len(b.refs) == 0 || b.err != nil {
		return
	}
	rep, err := distill(ctx, s, ix, b.refs, added, b.known)
	b.rep.Merge(rep)
	b.err = err
	b.known = &addedEntries{byID: map[memex.ID]memex.Entry{}}
	b.refs, b.seen = nil, map[memex.SessionRef]bool{}
}

// addedBytes bounds what an import keeps of the entries it adds for
// distilling (their strings, counted by addedEntries.add): a file whose
// entries pass it reads the rest of its sessions back.
const addedBytes = 16 << 20

// addedEntries holds entries as the archive's Add returned them.
type addedEntries struct {
	byID  map[memex.ID]memex.Entry
	bytes int
}

// add keeps e, when it fits and reads back as it is (archive.AsRead).
func (a *addedEntries) add(e memex.Entry) {
	n := entrySize(e)
	if a.bytes+n > addedBytes {
		return
	}
	e, ok := archive.AsRead(e)
	if !ok {
		return
	}
	a.byID[e.ID] = e
	a.bytes += n
}

func (a *addedEntries) get(id memex.ID) (memex.Entry, bool) {
	e, ok := a.byID[id]
	return e, ok
}

// entrySize is about what e holds in memory: its strings and its fields.
func entrySize(e memex.Entry) int {
	n := 256 + len(e.Project) + len(e.Session) + len(e.Agent) + len(e.Kind) + len(e.Tool) + len(e.Input) +
		len(e.Summary) + len(e.AgentSummary) + len(e.Hash)
	for _, a := range e.Aliases {
		n += 16 + len(a)
	}
	for k, v := range e.Attrs {
		n += 32 + len(k) + len(v)
	}
	return n
}

// knownSessions is a store whose sessions are read with the entries an
// import added taken from what it kept of them.
type knownSessions struct {
	*archive.Store
	known *addedEntries
}

func (k knownSessions) Session(ctx context.Context, ref memex.SessionRef, fn func(memex.Entry) error) error {
	return k.SessionWith(ctx, ref, k.known.get, fn)
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
	if rep.Removed == nil {
		rep.Removed = []memex.ID{} // "removed": [] in JSON, as the help lists it
	}
	_, err = catchup.CatchUp(ctx, s, ix)
	return rep, err
}
