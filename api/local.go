package api

import (
	"context"
	"fmt"
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// Local is the Service over an archive and its index in this process:
// deref's budgeted reads over Store, searches through Index, listings
// through Catalog, imports and maintenance through Ingester and
// Maintainer. internal/service builds one over a home's store and index;
// a nil Index, Catalog, Ingester or Maintainer makes its calls fail as not
// available on this server (501 over HTTP).
type Local struct {
	Store      Store
	Index      Index
	Catalog    Catalog
	Ingester   Ingester
	Maintainer Maintainer
	// CheckoutOf gives the working tree holding dir, against which file
	// lines are checked (DerefRequest.Checkout); nil checks none.
	CheckoutOf func(dir string) *deref.Checkout
}

var _ Service = (*Local)(nil)

func (l *Local) reader() *deref.Reader { return deref.New(l.Store) }

func (l *Local) checkout(dir string) *deref.Checkout {
	if dir == "" || l.CheckoutOf == nil {
		return nil
	}
	return l.CheckoutOf(dir)
}

// Add archives req as it is: the write policy is the decorator's (see
// Service.Add). An entry with a tool and no kind is a tool call.
func (l *Local) Add(ctx context.Context, req AddRequest) (memex.Entry, error) {
	e := req.Entry
	if e.Kind == "" && e.Tool != "" {
		e.Kind = memex.KindTool
	}
	return l.Store.Add(ctx, e, req.Body)
}

func (l *Local) Entry(ctx context.Context, ref, project string) (memex.Entry, error) {
	id, err := l.Store.Resolve(ctx, ref, project)
	if err != nil {
		return memex.Entry{}, err
	}
	return l.Store.Get(ctx, id)
}

func (l *Local) Lines(ctx context.Context, req LinesRequest) (io.ReadCloser, error) {
	return l.Store.Lines(ctx, req.ID, max(req.From, 1), req.To)
}

func (l *Local) Show(ctx context.Context, req ShowRequest) (ShowResult, error) {
	if req.Budget <= 0 {
		return ShowResult{}, memex.Errorf(memex.ErrInvalid, "show: budget %d: want a positive number of tokens", req.Budget)
	}
	it, res, err := l.reader().Show(ctx, req.Ref, req.Budget, req.Project)
	if err != nil {
		return ShowResult{}, err
	}
	return ShowResult{Item: it, Result: res}, nil
}

func (l *Local) Search(ctx context.Context, q Query) (SearchResult, error) {
	if l.Index == nil {
		return SearchResult{}, fmt.Errorf("search: %w", errUnavailable)
	}
	res, err := l.Index.Search(ctx, q)
	if res.Hits == nil {
		res.Hits = []Hit{}
	}
	return res, err
}

func (l *Local) Deref(ctx context.Context, req DerefRequest) (DerefResult, error) {
	if len(req.Refs) == 0 {
		return DerefResult{}, memex.Errorf(memex.ErrInvalid, "deref: refs is empty: name at least one ID or alias")
	}
	if req.Budget < 0 {
		return DerefResult{}, memex.Errorf(memex.ErrInvalid, "deref: budget %d: want 0 (the default) or a positive number of tokens", req.Budget)
	}
	res, err := l.reader().Deref(ctx, req.Refs, deref.Options{Budget: req.Budget, Query: req.Query,
		Project: req.Project, Checkout: l.checkout(req.Checkout), Base64: req.Base64})
	if err != nil {
		return DerefResult{}, err
	}
	return DerefResult{res, res.Text}, nil
}

func (l *Local) Context(ctx context.Context, req ContextRequest) (ContextResult, error) {
	if req.Session == "" && req.Project == "" {
		return ContextResult{}, fmt.Errorf("context: give a session or a project: %w", memex.ErrInvalid)
	}
	if req.Budget < 0 {
		return ContextResult{}, memex.Errorf(memex.ErrInvalid, "context: budget %d: want 0 (the default) or a positive number of tokens", req.Budget)
	}
	if req.Budget == 0 {
		req.Budget = deref.DefaultContextBudget
	}
	opts := deref.ContextOptions{Session: req.Session, Agent: req.Agent, Project: req.Project, Budget: req.Budget, Checkout: l.checkout(req.Checkout)}
	if req.Before != "" {
		id, err := l.Store.Resolve(ctx, req.Before, req.Project)
		if err != nil {
			return ContextResult{}, err
		}
		opts.Before = id
	}
	res, err := l.reader().Context(ctx, opts)
	if err != nil {
		return ContextResult{}, err
	}
	return ContextResult{res, res.Text}, nil
}

func (l *Local) Sessions(ctx context.Context, f SessionFilter) ([]SessionInfo, error) {
	if l.Catalog == nil {
		return nil, fmt.Errorf("sessions: %w", errUnavailable)
	}
	if f.Limit < 0 {
		return nil, memex.Errorf(memex.ErrInvalid, "sessions: limit %d: want 0 (all) or more", f.Limit)
	}
	list, err := l.Catalog.Sessions(ctx, f)
	if err != nil {
		return nil, err
	}
	return f.Apply(list), nil
}

func (l *Local) Stats(ctx context.Context) (Stats, error) {
	if l.Catalog == nil {
		return Stats{}, fmt.Errorf("stats: %w", errUnavailable)
	}
	return l.Catalog.Stats(ctx)
}

func (l *Local) Replay(ctx context.Context, req ReplayRequest) ([]EntryJSON, error) {
	entries := []EntryJSON{}
	// A unique prefix of a name names its session (replay 5f0c2a91).
	ref, err := deref.ResolveSession(ctx, l.Store, req.Ref)
	if err != nil {
		return nil, err
	}
	err = l.Store.Session(ctx, ref, func(e memex.Entry) error {
		if !req.Content {
			entries = append(entries, EntryJSON{Entry: e})
			return nil
		}
		rc, err := l.Store.Body(ctx, e.ID)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		entries = append(entries, WithContent(e, b))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

func (l *Local) Ingest(ctx context.Context, req IngestRequest) (IngestResult, error) {
	if l.Ingester == nil {
		return IngestResult{}, fmt.Errorf("ingest: %w", errUnavailable)
	}
	if req.Format == "" {
		return IngestResult{}, fmt.Errorf("ingest: format is required: %w", memex.ErrInvalid)
	}
	return l.Ingester.Ingest(ctx, req)
}

func (l *Local) Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error) {
	if l.Maintainer == nil {
		return ForgetResult{}, fmt.Errorf("forget: %w", errUnavailable)
	}
	return l.Maintainer.Forget(ctx, req)
}

func (l *Local) Verify(ctx context.Context) (VerifyResult, error) {
	if l.Maintainer == nil {
		return VerifyResult{}, fmt.Errorf("verify: %w", errUnavailable)
	}
	return l.Maintainer.Verify(ctx)
}

func (l *Local) Reindex(ctx context.Context) (ReindexResult, error) {
	if l.Maintainer == nil {
		return ReindexResult{}, fmt.Errorf("reindex: %w", errUnavailable)
	}
	return l.Maintainer.Reindex(ctx)
}
