package service

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/redact"
)

// Options configure New. The zero value serves every call.
type Options struct {
	// Progress, when it returns a function, is told how a reindex goes.
	Progress func() func(done, total int)
	// IndexProgress, when it returns a function, is told how a search's
	// catch-up goes (Searcher.Progress).
	IndexProgress func() func(done, total int)
	// CheckoutOf gives the working tree holding a directory
	// (api.Local.CheckoutOf); nil checks no file lines.
	CheckoutOf func(dir string) *deref.Checkout
	// Dir is the directory whose checkout a memory request that names
	// none is checked against, and whose project is its default
	// (Memory.Dir): the process's working directory.
	Dir string
	// Logger gets what fails after an add succeeded (distilling its
	// session); nil discards it.
	Logger *slog.Logger
}

// New returns the Service over h's store and index (imports and
// maintenance included), with the write policy (Redacting) and the
// distillation of runs (Distilling). It is valid until h is closed.
func New(h *home.Home, o Options) api.Service {
	return Redacting(Distilling(local(h, o), h.Store, o.Logger))
}

// local is the Service over h without the write policy and distillation
// that New wraps around it.
func local(h *home.Home, o Options) *api.Local {
	return &api.Local{Store: h.Store, Index: Searcher{Store: h.Store, Index: h.Index, AsIs: h.Shared(), Progress: o.IndexProgress},
		Catalog: Catalog{Store: h.Store, IndexDir: filepath.Join(h.Dir, home.IndexDir)}, Ingester: importer{h}, Maintainer: Maintainer{Home: h, Progress: o.Progress},
		CheckoutOf: o.CheckoutOf}
}

// Redacting applies the write policy (package redact's rule: the entry's
// text fields, attrs included, and its body) to every Add and every
// Ingest of svc that does not ask for NoRedact; the stored entry's
// Redacted, and an import's Redacted and RedactedKinds, count the
// replacements. It is where a write through a Service is redacted (ingest
// applies the policy an import request carries, api.IngestRequest.Policy,
// which this sets); what is spooled first went through the same policy
// on its way to the spool (Policy, PolicyWriter) and is added with
// NoRedact, and IngestDistilled gives ingest Policy itself: each write is
// redacted once.
func Redacting(svc api.Service) api.Service { return redacting{svc} }

type redacting struct{ api.Service }

func (r redacting) Add(ctx context.Context, req api.AddRequest) (memex.Entry, error) {
	if !req.NoRedact {
		var body *redact.Reader
		req.Entry, body = redact.Entry(req.Entry, req.Body)
		req.Body = body
	}
	return r.Service.Add(ctx, req)
}

func (r redacting) Ingest(ctx context.Context, req api.IngestRequest) (api.IngestResult, error) {
	req.Policy = nil
	if !req.NoRedact {
		req.Policy = Policy
	}
	return r.Service.Ingest(ctx, req)
}

// Policy is the write policy for an entry whose body is held in memory
// (redact.Bytes): the entry and body to store, and the replacements by
// kind, all of which the returned entry's Redacted counts.
func Policy(e memex.Entry, body []byte) (memex.Entry, []byte, map[string]int) {
	return redact.Bytes(e, body)
}

// Searcher is the index as api.Index: it resolves a query's before and
// after (IDs, aliases narrowed by the query's project, or times) and the
// unique prefix of a session's name into the name, brings the index up to
// date with the archive, then searches. Index opens the index on first
// use.
type Searcher struct {
	Store *archive.Store
	Index func() (*index.Index, error)
	// AsIs searches the index as it is, without a catch-up: for a home
	// opened read-only (a store whose disk is full).
	AsIs bool
	// Progress, when it returns a function, is told how the catch-up
	// before a search goes: the first search after an import without
	// the index (ingest --no-index) indexes all of it.
	Progress func() func(done, total int)
}

func (x Searcher) Search(ctx context.Context, q api.Query) (api.SearchResult, error) {
	iq := index.Query{Text: q.Text, Limit: q.Limit, Project: q.Project, Session: q.Session,
		Agent: q.Agent, Kind: q.Kind, Tool: q.Tool}
	if err := ResolveBounds(ctx, x.Store, &iq, q.Before, q.After); err != nil {
		return api.SearchResult{}, err
	}
	if iq.Session != "" {
		// A unique prefix names its session here as in a replay or a
		// context: memex sessions shows the names of UUIDs cut short.
		ref, err := x.Store.ResolveSession(ctx, memex.SessionRef{Session: iq.Session, Project: iq.Project, Agent: iq.Agent})
		if err != nil {
			return api.SearchResult{}, err
		}
		iq.Session = ref.Session
	}
	ix, err := x.Index()
	if err != nil {
		return api.SearchResult{}, err
	}
	if !x.AsIs {
		// A forget that cannot be finished (a record it cannot delete)
		// must not stop every search, nor be tried again by each: the
		// journal stays, memex verify reports it and memex forget
		// retries it, saying why; search meanwhile drops the rows whose
		// entries are gone.
		if _, failed := unfinishedForget.Load(x.Store); !failed {
			if _, err := finishForget(ctx, x.Store, ix); err != nil {
				if ctx.Err() != nil {
					return api.SearchResult{}, err
				}
				unfinishedForget.Store(x.Store, true)
			}
		}
		var progress func(done, total int)
		if x.Progress != nil {
			progress = x.Progress()
		}
		if _, err := catchup.CatchUpWith(ctx, x.Store, ix, progress); err != nil {
			return api.SearchResult{}, err
		}
	}
	if q.Sessions {
		res, err := ix.Sessions(ctx, iq)
		if err != nil {
			return api.SearchResult{}, err
		}
		out := api.SearchResult{Hits: []api.Hit{}, Sessions: []api.SessionHit{}, Total: uint64(len(res.Sessions)),
			Partial: res.Partial, Took: res.Took}
		for _, s := range res.Sessions {
			out.Sessions = append(out.Sessions, api.SessionHit{Project: s.Project, Session: s.Session,
				Score: s.Score, Cover: s.Cover, Hits: s.Hits})
		}
		return out, nil
	}
	res, err := ix.Search(ctx, iq)
	if err != nil {
		return api.SearchResult{}, err
	}
	return api.SearchResult{Hits: res.Hits, Total: res.Total, Partial: res.Partial, Relaxed: res.Relaxed, Partly: res.Partly, Took: res.Took}, nil
}

// ResolveBounds resolves before and after (IDs, times as memex.ParseTime
// reads them, or aliases narrowed by the query's project) into q.
func ResolveBounds(ctx context.Context, s *archive.Store, q *index.Query, before, after string) error {
	for _, b := range []struct {
		ref string
		id  *memex.ID
	}{{before, &q.Before}, {after, &q.After}} {
		if b.ref == "" {
			continue
		}
		if !memex.LooksLikeID(b.ref) {
			if t, err := memex.ParseTime(b.ref, time.Now()); err == nil {
				*b.id = memex.IDFloor(t)
				continue
			}
		}
		id, err := s.Resolve(ctx, b.ref, q.Project)
		if err != nil {
			return err
		}
		*b.id = id
	}
	return nil
}

// Catalog is the archive as api.Catalog.
type Catalog struct {
	Store *archive.Store
	// IndexDir is the index's directory, whose files Stats counts ("":
	// none).
	IndexDir string
}

// Sessions sums up the sessions of the entries f admits, oldest first.
func (c Catalog) Sessions(ctx context.Context, f api.SessionFilter) ([]api.SessionInfo, error) {
	// A session is its name, project and agent together (memex.SessionRef).
	by := map[memex.SessionRef]*api.SessionInfo{}
	err := c.Store.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		if e.Session == "" || (f.Project != "" && e.Project != f.Project) || (f.Agent != "" && e.Agent != f.Agent) {
			return nil
		}
		si := by[e.SessionRef()]
		if si == nil {
			si = &api.SessionInfo{Session: e.Session, Agent: e.Agent, Project: e.Project, Start: e.Created, End: e.Created}
			by[e.SessionRef()] = si
		}
		si.Entries++
		si.Tokens += e.Tokens
		if e.Created.Before(si.Start) {
			si.Start = e.Created
		}
		if e.Created.After(si.End) {
			si.End = e.Created
		}
		if e.IsCompaction() {
			si.Compactions++
		}
		if p := e.Attrs["parent_session"]; p != "" && si.Parent == "" {
			si.Parent = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]api.SessionInfo, 0, len(by))
	for _, si := range by {
		out = append(out, *si)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return cmp.Or(strings.Compare(out[i].Session, out[j].Session), strings.Compare(out[i].Project, out[j].Project),
			strings.Compare(out[i].Agent, out[j].Agent)) < 0
	})
	return out, nil
}

// Stats are the archive's figures.
func (c Catalog) Stats(ctx context.Context) (api.Stats, error) {
	st, err := c.Store.Stats(ctx)
	if err != nil {
		return api.Stats{}, err
	}
	out := StatsOf(st)
	if out.IndexBytes, err = dirBytes(c.IndexDir); err != nil {
		return api.Stats{}, fmt.Errorf("stats: the index: %w", err)
	}
	return out, nil
}

// dirBytes are the sizes of the regular files under dir added up: 0 when
// dir is "" or does not exist (an index not built yet).
func dirBytes(dir string) (int64, error) {
	if dir == "" {
		return 0, nil
	}
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // the directory, or a file bleve removed meanwhile
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// StatsOf is st as memex stats --json prints it.
func StatsOf(st archive.Stats) api.Stats {
	return api.Stats{Entries: st.Entries, Sessions: st.Sessions, Bodies: st.Bodies, RawBytes: st.RawBytes,
		UniqueBytes: st.UniqueBytes, StoredBytes: st.StoredBytes, DiskBytes: st.DiskBytes,
		Ratio: float64(int64(st.Ratio()*100+0.5)) / 100, DedupSaved: st.DedupSaved(), Tokens: st.Tokens, Pending: st.Pending}
}

// Locked is the Service that opens the home for each call, through Open
// (for writing when write is set, else shared), and closes it before
// returning: a long-lived server (memex mcp over stdio) then never holds
// the store between calls. Bodies are read whole before the release.
type Locked struct {
	Open func(ctx context.Context, write bool) (*home.Home, error)
	// Remote, when set, gives the Client of the server that owns the
	// store now, if one runs: a call goes to it instead of opening the
	// home (a memex mcp started before memex serve).
	Remote  func(ctx context.Context) (*api.Client, bool)
	Options Options
}

var _ api.Service = Locked{}

// with runs fn on the running server's Client (Remote), else on the
// Service over the home opened for this call.
func with[T any](ctx context.Context, l Locked, write bool, fn func(api.Service) (T, error)) (T, error) {
	if c, ok := l.remote(ctx); ok {
		return fn(c)
	}
	return onHome(ctx, l, write, func(h *home.Home) (T, error) { return fn(New(h, l.Options)) })
}

// remote is the Client of the server that owns the store, if one runs.
func (l Locked) remote(ctx context.Context) (*api.Client, bool) {
	if l.Remote == nil {
		return nil, false
	}
	return l.Remote(ctx)
}

// onHome opens the home for one call (for writing when write is set),
// runs fn on it and closes it; a failed Close is the call's error when
// fn succeeded.
func onHome[T any](ctx context.Context, l Locked, write bool, fn func(*home.Home) (T, error)) (T, error) {
	var zero T
	h, err := l.Open(ctx, write)
	if err != nil {
		return zero, err
	}
	v, err := fn(h)
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return zero, err
	}
	return v, nil
}

func (l Locked) Add(ctx context.Context, req api.AddRequest) (memex.Entry, error) {
	return with(ctx, l, true, func(s api.Service) (memex.Entry, error) { return s.Add(ctx, req) })
}

func (l Locked) Entry(ctx context.Context, ref, project string) (memex.Entry, error) {
	return with(ctx, l, false, func(s api.Service) (memex.Entry, error) { return s.Entry(ctx, ref, project) })
}

func (l Locked) Lines(ctx context.Context, req api.LinesRequest) (io.ReadCloser, error) {
	b, err := with(ctx, l, false, func(s api.Service) ([]byte, error) {
		rc, err := s.Lines(ctx, req)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	})
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (l Locked) Show(ctx context.Context, req api.ShowRequest) (api.ShowResult, error) {
	return with(ctx, l, false, func(s api.Service) (api.ShowResult, error) { return s.Show(ctx, req) })
}

// Search opens the home for writing: it brings the index up to date.
func (l Locked) Search(ctx context.Context, q api.Query) (api.SearchResult, error) {
	return with(ctx, l, true, func(s api.Service) (api.SearchResult, error) { return s.Search(ctx, q) })
}

func (l Locked) Deref(ctx context.Context, req api.DerefRequest) (api.DerefResult, error) {
	return with(ctx, l, false, func(s api.Service) (api.DerefResult, error) { return s.Deref(ctx, req) })
}

func (l Locked) Context(ctx context.Context, req api.ContextRequest) (api.ContextResult, error) {
	return with(ctx, l, false, func(s api.Service) (api.ContextResult, error) { return s.Context(ctx, req) })
}

func (l Locked) Sessions(ctx context.Context, f api.SessionFilter) ([]api.SessionInfo, error) {
	return with(ctx, l, false, func(s api.Service) ([]api.SessionInfo, error) { return s.Sessions(ctx, f) })
}

func (l Locked) Stats(ctx context.Context) (api.Stats, error) {
	return with(ctx, l, false, func(s api.Service) (api.Stats, error) { return s.Stats(ctx) })
}

func (l Locked) Replay(ctx context.Context, req api.ReplayRequest) ([]api.EntryJSON, error) {
	return with(ctx, l, false, func(s api.Service) ([]api.EntryJSON, error) { return s.Replay(ctx, req) })
}

func (l Locked) Ingest(ctx context.Context, req api.IngestRequest) (api.IngestResult, error) {
	return with(ctx, l, true, func(s api.Service) (api.IngestResult, error) { return s.Ingest(ctx, req) })
}

func (l Locked) Forget(ctx context.Context, req api.ForgetRequest) (api.ForgetResult, error) {
	return with(ctx, l, true, func(s api.Service) (api.ForgetResult, error) { return s.Forget(ctx, req) })
}

func (l Locked) Verify(ctx context.Context) (api.VerifyResult, error) {
	return with(ctx, l, false, func(s api.Service) (api.VerifyResult, error) { return s.Verify(ctx) })
}

func (l Locked) Reindex(ctx context.Context) (api.ReindexResult, error) {
	return with(ctx, l, true, func(s api.Service) (api.ReindexResult, error) { return s.Reindex(ctx) })
}
