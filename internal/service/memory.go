package service

import (
	"context"
	"fmt"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/memory"
)

// StaleTimeout bounds the file checks of a Stale request.
const StaleTimeout = 10 * time.Second

// Memory is api.Memory over an archive: what package memory distils from
// it, with the evidence checked against the checkout a request names, else
// against the checkout of Dir (the directory the process runs in), whose
// project is then the default one.
type Memory struct {
	Store *archive.Store
	// Dir is the directory of the default checkout; "" has none.
	Dir string
	// CheckoutOf gives the checkout holding a directory; nil checks no
	// files (and a stale request fails).
	CheckoutOf func(dir string) *deref.Checkout
	// Index is the index a Distill brings up to date; nil cannot
	// distil.
	Index func() (*index.Index, error)
}

var _ api.Memory = Memory{}

// NewMemory is the Memory over h's store, with o's Dir and CheckoutOf. It
// is valid until h is closed.
func NewMemory(h *home.Home, o Options) Memory {
	return Memory{Store: h.Store, Dir: o.Dir, CheckoutOf: o.CheckoutOf, Index: h.Index}
}

// checkout is the checkout of dir, else of m.Dir; nil without either.
func (m Memory) checkout(dir string) *deref.Checkout {
	return Options{Dir: m.Dir, CheckoutOf: m.CheckoutOf}.CheckoutAt(dir)
}

// project is p, else the project of the default checkout.
func (m Memory) project(p string) string {
	if p == "" {
		if co := m.checkout(""); co != nil {
			return co.Project
		}
	}
	return p
}

func (m Memory) Handoff(ctx context.Context, req api.HandoffRequest) (memory.Capsule, error) {
	co := m.checkout(req.Checkout)
	if req.Project == "" && co != nil {
		req.Project = co.Project
	}
	return memory.Handoff(ctx, m.Store, memory.HandoffOptions{Project: req.Project, Budget: req.Budget, Exclude: req.Exclude, Checkout: co})
}

func (m Memory) Stale(ctx context.Context, req api.StaleRequest) (memory.StaleResult, error) {
	if req.Limit < 0 {
		return memory.StaleResult{}, memex.Errorf(memex.ErrInvalid, "stale: limit %d: want 0 (all) or more", req.Limit)
	}
	co := m.checkout(req.Checkout)
	if co == nil {
		return memory.StaleResult{}, fmt.Errorf("stale: no working directory to check against: %w", memex.ErrInvalid)
	}
	co.Timeout = StaleTimeout
	switch {
	case req.Project == "":
		req.Project = co.Project
	case co.Project != "" && co.Project != req.Project:
		// Its files are another project's: each memory would read "gone".
		return memory.StaleResult{}, memex.Errorf(memex.ErrInvalid, "stale: %s is a checkout of %s, not of %s: check the memories of %s in a checkout of it",
			co.Root, co.Project, req.Project, req.Project)
	default:
		co.Project = req.Project
	}
	return memory.Stale(ctx, m.Store, memory.StaleOptions{Project: req.Project, Checkout: co, Limit: req.Limit})
}

func (m Memory) Procedures(ctx context.Context, req api.ProceduresRequest) (memory.ProceduresResult, error) {
	if err := memory.CheckFamily(req.Family); err != nil {
		return memory.ProceduresResult{}, err
	}
	res, err := memory.Procedures(ctx, m.Store, m.project(req.Project), memory.Rule{})
	if err != nil {
		return memory.ProceduresResult{}, err
	}
	return res.Family(req.Family), nil
}

func (m Memory) Hint(ctx context.Context, req api.HintRequest) (string, error) {
	id, err := m.Store.Resolve(ctx, req.Ref, req.Project)
	if err != nil {
		return "", err
	}
	return memory.HintFor(ctx, m.Store, id)
}

func (m Memory) Lessons(ctx context.Context, req api.LessonsRequest) ([]memory.LessonItem, error) {
	if req.Limit < 0 {
		return nil, memex.Errorf(memex.ErrInvalid, "lessons: limit %d: want 0 (all) or more", req.Limit)
	}
	return memory.ListLessons(ctx, m.Store, memory.LessonFilter{Project: req.Project, Session: req.Session, Status: req.Status, Limit: req.Limit})
}

func (m Memory) Distill(ctx context.Context, req api.DistillRequest) (memory.UpdateReport, error) {
	if m.Index == nil {
		return memory.UpdateReport{}, memex.Errorf(memex.ErrInvalid, "distill: no index to bring up to date")
	}
	ix, err := m.Index()
	if err != nil {
		return memory.UpdateReport{}, err
	}
	return DistillAll(ctx, m.Store, ix, req.Project)
}

// The Locked Service is a Memory too, opening the home (shared) for each
// call.

var _ api.Memory = Locked{}

// withMemory runs fn on the Memory over the home opened for this call
// (for writing when write is set), as with does on the Service.
func withMemory[T any](ctx context.Context, l Locked, write bool, fn func(api.Memory) (T, error)) (T, error) {
	if c, ok := l.remote(ctx); ok {
		return fn(c)
	}
	return onHome(ctx, l, write, func(h *home.Home) (T, error) { return fn(NewMemory(h, l.Options)) })
}

func (l Locked) Handoff(ctx context.Context, req api.HandoffRequest) (memory.Capsule, error) {
	return withMemory(ctx, l, false, func(m api.Memory) (memory.Capsule, error) { return m.Handoff(ctx, req) })
}

func (l Locked) Stale(ctx context.Context, req api.StaleRequest) (memory.StaleResult, error) {
	return withMemory(ctx, l, false, func(m api.Memory) (memory.StaleResult, error) { return m.Stale(ctx, req) })
}

func (l Locked) Procedures(ctx context.Context, req api.ProceduresRequest) (memory.ProceduresResult, error) {
	return withMemory(ctx, l, false, func(m api.Memory) (memory.ProceduresResult, error) { return m.Procedures(ctx, req) })
}

func (l Locked) Hint(ctx context.Context, req api.HintRequest) (string, error) {
	return withMemory(ctx, l, false, func(m api.Memory) (string, error) { return m.Hint(ctx, req) })
}

func (l Locked) Lessons(ctx context.Context, req api.LessonsRequest) ([]memory.LessonItem, error) {
	return withMemory(ctx, l, false, func(m api.Memory) ([]memory.LessonItem, error) { return m.Lessons(ctx, req) })
}

func (l Locked) Distill(ctx context.Context, req api.DistillRequest) (memory.UpdateReport, error) {
	return withMemory(ctx, l, true, func(m api.Memory) (memory.UpdateReport, error) { return m.Distill(ctx, req) })
}
