package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
)

// Store is what the viewer reads of the archive (archive.Store has it).
// Every method honours ctx; missing entries and sessions are
// memex.ErrNotFound.
type Store interface {
	deref.Store
	// Lines streams lines from..to (1-based, inclusive; to <= 0 is the
	// end) of an entry's body; the caller closes it.
	Lines(ctx context.Context, id memex.ID, from, to int64) (io.ReadCloser, error)
}

// SessionKey is what the archive knows of a session without reading its
// entries: its identity, how many entries it has and the IDs of the first
// and last (an ID's time is its entry's creation time).
type SessionKey struct {
	memex.SessionRef
	Entries     int
	First, Last memex.ID
}

// Catalog lists the sessions of the archive from its keys (cmd/memex
// adapts archive.Store.Sessions).
type Catalog interface {
	SessionKeys(ctx context.Context) ([]SessionKey, error)
}

// Searcher searches the archive as GET /v1/search does (api.Index).
type Searcher interface {
	Search(ctx context.Context, q api.Query) (api.SearchResult, error)
}

// EvalRun is one saved run of memex eval budget: its name and origin, and
// what the eval package renders of its report.
type EvalRun struct {
	Name    string
	Source  string // the folder it was read from
	Created time.Time
	Probes  int    // probes scored
	File    string // the probe file it ran on, as given
	Plot    []byte // the SVG that memex eval budget --plot writes
	Table   string // the table that memex eval budget prints
}

// Evals lists saved evaluation runs, newest first.
type Evals interface {
	EvalRuns(ctx context.Context) ([]EvalRun, error)
}

// Options configure New. Store and Catalog are required; a nil Index makes
// the search page say that search is not available, a nil Evals the eval
// page that no runs are kept.
type Options struct {
	Store   Store
	Catalog Catalog
	Index   Searcher
	Evals   Evals
	// Checkout, when set, gives the working tree that the entry page's
	// stale marks are checked against (see deref.Checkout); called once
	// per request.
	Checkout func() *deref.Checkout
	// PageSize is how many sessions, steps or hits a page lists; 0 means
	// 50 (sessions), 200 (steps of a session), 20 (hits).
	PageSize int
	// PageLines is how many lines of an entry one page shows; 0 means
	// 2,000.
	PageLines int
	// Poll is how often a session's page asks for new entries; 0 means
	// two seconds.
	Poll time.Duration
	// Version is shown in the footer.
	Version string
	// Logger gets the errors of requests; nil discards them.
	Logger *slog.Logger
}

// Viewer is the web viewer: an http.Handler serving the pages under /
// (api.Options.Viewer mounts it). It is safe for concurrent use if its
// Store, Catalog and Index are.
type Viewer struct {
	opts   Options
	reader *deref.Reader
	log    *slog.Logger
	mux    *http.ServeMux
	pages  map[string]*template.Template
	stats  *statsCache
	assets fs.FS
	etag   string
}

//go:embed assets templates
var files embed.FS

// New returns a Viewer over opts.Store.
func New(opts Options) (*Viewer, error) {
	if opts.Store == nil || opts.Catalog == nil {
		return nil, errors.New("web: new: a Store and a Catalog are required")
	}
	if opts.PageLines <= 0 {
		opts.PageLines = 2000
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	v := &Viewer{opts: opts, reader: deref.New(opts.Store), log: opts.Logger, stats: newStatsCache()}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if v.pages, err = parsePages(); err != nil {
		return nil, err
	}
	v.assets, _ = fs.Sub(files, "assets")
	v.etag = assetsTag(v.assets)
	v.mux = v.routes()
	return v, nil
}

func (v *Viewer) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", v.handleSessions)
	m.HandleFunc("GET /s/{name...}", v.handleSession)
	m.HandleFunc("GET /e/{ref}", v.handleEntry)
	m.HandleFunc("GET /e/{ref}/raw", v.handleRaw)
	m.HandleFunc("GET /e/{ref}/peek", v.handlePeek)
	m.HandleFunc("GET /search", v.handleSearch)
	m.HandleFunc("GET /context", v.handleContext)
	m.HandleFunc("GET /eval", v.handleEval)
	m.HandleFunc("GET /_/{file}", v.handleAsset)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		v.fail(w, r, fmt.Errorf("no page %s: %w", r.URL.Path, memex.ErrNotFound))
	})
	return m
}

// ServeHTTP serves the viewer's pages and assets.
func (v *Viewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Every page's script and style come from /_/: nothing inline runs,
	// so content that slipped past escaping could not run either.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	v.mux.ServeHTTP(w, r)
}

// page is what every page's layout reads.
type page struct {
	Title   string
	Nav     string // which tab is current
	Version string
	Data    any
}

// render executes a page, or the fragment of it that a script asks for
// (?frag=1), into a buffer first: an error midway becomes an error page,
// not half a page.
func (v *Viewer) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	t := v.pages[name]
	var buf bytes.Buffer
	var err error
	if r.URL.Query().Get("frag") == "1" {
		err = t.ExecuteTemplate(&buf, "frag", data)
	} else {
		err = t.ExecuteTemplate(&buf, "layout", page{Title: title, Nav: name, Version: v.opts.Version, Data: data})
	}
	if err != nil {
		v.log.Error("web: render", "page", name, "err", err)
		http.Error(w, "web: render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// statusOf maps an error to the status api gives it.
func statusOf(err error) int { return api.Status(err) }

type errorData struct {
	Status  int
	Message string
}

// fail renders err as an error page (or fragment).
func (v *Viewer) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	if status == http.StatusInternalServerError {
		v.log.Error("web", "path", r.URL.Path, "err", err)
	}
	v.render(w, r, status, "error", http.StatusText(status), errorData{status, err.Error()})
}

func (v *Viewer) handleAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := fs.ReadFile(v.assets, name)
	if err != nil {
		v.fail(w, r, fmt.Errorf("no asset %s: %w", name, memex.ErrNotFound))
		return
	}
	switch {
	case hasSuffix(name, ".css"):
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case hasSuffix(name, ".js"):
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case hasSuffix(name, ".svg"):
		w.Header().Set("Content-Type", "image/svg+xml")
	}
	w.Header().Set("ETag", v.etag)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// sessionURL is the address of a session's page.
func sessionURL(ref memex.SessionRef) string {
	q := url.Values{}
	if ref.Project != "" {
		q.Set("project", ref.Project)
	}
	if ref.Agent != "" {
		q.Set("agent", ref.Agent)
	}
	u := "/s/" + url.PathEscape(ref.Session)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}
