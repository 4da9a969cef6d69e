package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// Store is what the API needs of the archive (archive.Store has it). Every
// method honours ctx; missing entries and sessions are memex.ErrNotFound.
type Store interface {
	deref.Store
	// Add archives body under e and returns the stored metadata; it
	// returns only once the entry is durable.
	Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error)
	// Lines streams lines from..to (1-based, inclusive; to <= 0 is the
	// end) of an entry's body; the caller closes it.
	Lines(ctx context.Context, id memex.ID, from, to int64) (io.ReadCloser, error)
}

// Index searches the archive (cmd/memex adapts index.Index).
type Index interface {
	Search(ctx context.Context, q Query) (SearchResult, error)
}

// Query is a search: words and phrases in Text, the rest filters. Before and
// After are IDs or aliases, resolved by the Index's adapter.
type Query struct {
	Text    string `json:"q"`
	Limit   int    `json:"limit,omitempty"`
	Project string `json:"project,omitempty"`
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	// Sessions ranks sessions instead of entries: the answer's Sessions,
	// at most Limit, each with its hits (index.Sessions), and no Hits.
	Sessions bool `json:"sessions,omitempty"`
}

// Hit is one search result (the domain type, see memex.Hit).
type Hit = memex.Hit

// SearchResult is the answer to a Query.
type SearchResult struct {
	Hits    []Hit  `json:"hits"`
	Total   uint64 `json:"total"`
	Partial bool   `json:"partial,omitempty"`
	Relaxed bool   `json:"relaxed,omitempty"`
	Partly  int    `json:"partly,omitempty"` // the last Partly hits match only some of the words
	// Took is how long the search ran, as memex search --json reports it.
	Took time.Duration `json:"took_ns"`
	// Sessions answers a Query with Sessions set, best first (Total then
	// counts them).
	Sessions []SessionHit `json:"sessions,omitempty"`
}

// SessionHit is a session found by a Query with Sessions set: scored by
// its best hit times Cover, the share of the query's words (by IDF) that
// its hits hold together; Hits are its hits, best first.
type SessionHit struct {
	Project string  `json:"project"`
	Session string  `json:"session"`
	Score   float64 `json:"score"`
	Cover   float64 `json:"cover"`
	Hits    []Hit   `json:"hits"`
}

// SessionInfo sums up one session, as GET /v1/sessions and
// `memex sessions --json` print it.
type SessionInfo struct {
	Session     string    `json:"session"`
	Agent       string    `json:"agent"`
	Project     string    `json:"project"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Entries     int       `json:"entries"`
	Tokens      int64     `json:"tokens"`
	Compactions int       `json:"compactions"` // points where the agent's context was compacted
	Parent      string    `json:"parent,omitempty"`
}

// SessionList is a session listing as GET /v1/sessions answers it and
// memex sessions --json prints it: one shape for the resource on every
// path (an object, so that it can grow fields).
type SessionList struct {
	Sessions []SessionInfo `json:"sessions"`
}

// SessionFilter narrows a session listing to the entries of one project
// and of one agent ("" is any), to the sessions active at or after Since
// (their last entry; zero is any time), and to the Limit most recently
// started of those (0 is all), still listed oldest first.
type SessionFilter struct {
	Project string
	Agent   string
	Since   time.Time
	Limit   int
}

// Apply narrows list, oldest first as Catalog.Sessions returns it, to
// the sessions f admits. Applied to a list it already narrowed, it
// changes nothing.
func (f SessionFilter) Apply(list []SessionInfo) []SessionInfo {
	out := make([]SessionInfo, 0, len(list))
	for _, si := range list {
		if (f.Project != "" && si.Project != f.Project) || (f.Agent != "" && si.Agent != f.Agent) ||
			(!f.Since.IsZero() && si.End.Before(f.Since)) {
			continue
		}
		out = append(out, si)
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

// Catalog lists sessions and archive figures.
type Catalog interface {
	// Sessions lists the sessions with entries that f admits, oldest
	// first, counting those entries only.
	Sessions(ctx context.Context, f SessionFilter) ([]SessionInfo, error)
	// Stats returns the archive's figures.
	Stats(ctx context.Context) (Stats, error)
}

// ContextRequest asks for an IndexedSummary: of a session, a project or
// both, within Budget tokens, optionally only entries before an ID, with
// the file lines of entries checked against the client's checkout.
type ContextRequest struct {
	Session string `json:"session,omitempty"`
	// Agent narrows Session to that agent's session of the name, when
	// several agents' sessions share it.
	Agent   string `json:"agent,omitempty"`
	Project string `json:"project,omitempty"`
	Budget  int    `json:"budget,omitempty"` // 0: deref.DefaultContextBudget
	Before  string `json:"before,omitempty"`
	// Checkout, when set, is the client's checkout (an absolute
	// directory): entries whose file lines no longer stand there are
	// marked. Empty: nothing is checked.
	Checkout string `json:"checkout,omitempty"`
}

// ContextResult is an IndexedSummary (deref's contract) with its plain
// rendering, which the budget bounds.
type ContextResult struct {
	deref.ContextResult
	Text string `json:"text"`
}

// IngestRequest asks the server to import transcripts it can read, with
// the options of memex ingest. Paths are read on the server's filesystem;
// none means the format's default locations there.
type IngestRequest struct {
	Format   string   `json:"format"`
	Paths    []string `json:"paths,omitempty"`
	Project  string   `json:"project,omitempty"`   // project for every session read
	NoRedact bool     `json:"no_redact,omitempty"` // store credentials as they are
	Full     bool     `json:"full,omitempty"`      // read every file whole
	NoIndex  bool     `json:"no_index,omitempty"`  // do not index the new entries before answering
	// Since and Max limit a git import to the commits after Since and to
	// the Max most recent (0: no limit), as memex ingest git --since and
	// --max.
	Since time.Time `json:"since,omitzero"`
	Max   int       `json:"max,omitempty"`

	// Warn, when set, is told each problem of the import (a malformed
	// line, a path that yields nothing) as it is met; a Client, which
	// learns them from the answer, tells it the answer's Warnings.
	Warn func(msg string) `json:"-"`
	// Progress, when set, is told how the import goes (bytes read of the
	// bytes found; commits for git). A Client does not call it.
	Progress func(done, total int64) `json:"-"`
	// Policy is the write policy applied to every entry imported (see
	// ingest.Options.Policy). The write policy's decorator
	// (internal/service.Redacting) sets it; nil stores the transcripts'
	// content as it is.
	Policy func(e memex.Entry, body []byte) (memex.Entry, []byte, map[string]int) `json:"-"`
}

// MaxIngestWarnings is how many problems an import's answer lists
// (IngestResult.Warnings) and memex ingest prints as they happen; the
// others are counted.
const MaxIngestWarnings = 20

// Ingester imports transcripts (internal/service adapts ingest).
type Ingester interface {
	Ingest(ctx context.Context, req IngestRequest) (IngestResult, error)
}

// Options configure New. Service answers the routes and tools; without
// one, New serves a Local over Store (required then), Index, Catalog,
// Ingester, Maintainer and Checkout, whose nil parts answer 501 (a tool
// error over MCP).
type Options struct {
	Service Service
	// Store is read by memex_compress for a session's transcript (and by
	// the Local built without Service).
	Store   Store
	Index   Index
	Catalog Catalog
	// Ingester serves POST /v1/ingest; nil answers 501.
	Ingester Ingester
	// Maintainer serves POST /v1/forget, /v1/verify and /v1/reindex; nil
	// answers 501.
	Maintainer Maintainer
	// Memory serves GET /v1/handoff, GET /v1/stale, GET /v1/procedures,
	// GET /v1/hint, GET /v1/lessons, POST /v1/distill, memex_handoff and
	// memex_procedures;
	// nil answers 501.
	Memory Memory
	// Viewer, when set, answers every path but /healthz, /v1 and /mcp
	// (the web viewer, package api/web), behind the same guard and token;
	// a browser may carry the token as a cookie there (viewer.go). Nil
	// answers those paths 404.
	Viewer http.Handler
	// Checkout, when set, gives the working tree that the file lines of
	// entries are checked against (see deref.Checkout), called once per
	// request: for dir "", the server's own (what memex_read, and a
	// handoff or stale request that names none, check against); else the
	// checkout holding dir, the absolute directory a request names as its
	// client's (the checkout parameter of deref, context, handoff and
	// stale), so that a served mark says what the client's files hold.
	Checkout func(dir string) *deref.Checkout

	// Hosts are the Host names the server answers besides loopback ones
	// (localhost, 127.0.0.1, ::1): the name or address it is reached by
	// off loopback. See guard.go.
	Hosts []string
	// IngestRoots are the directories POST /v1/ingest may read from (the
	// hosts' default locations, and what serve was started with).
	IngestRoots []string
	// Key, when set, lets a request that carries it in KeyHeader ingest
	// any path the server can read: memex itself, which reads it from
	// $MEMEX_HOME.
	Key string

	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every route but /healthz.
	Token string

	// MaxBody bounds the body of an add (raw bytes); 0 means 256 MiB,
	// negative no bound (the archive's free-space reserve still holds).
	MaxBody int64
	// MaxJSON bounds JSON request bodies (and MCP messages); 0 means
	// 16 MiB.
	MaxJSON int64

	// MaxInFlight bounds the /v1 requests served at once (each may hold
	// a JSON body of up to MaxJSON in memory); more wait up to QueueWait
	// for a slot, then get 503. 0 means 64.
	MaxInFlight int

	// Session returns the live agent session for MCP tools that default
	// to it (compress, context); nil or "" means the caller must say.
	Session func() string
	// Agent names the host for entries written by MCP tools (claude-code,
	// codex, ...); "" means "mcp".
	Agent string

	// Version is reported by /healthz and the MCP server.
	Version string
	// Logger gets request errors; nil discards them.
	Logger *slog.Logger
}

// Server holds the HTTP handler and the MCP server over one Store. It keeps
// no state of its own between requests and is safe for concurrent use if
// its Store, Index and Catalog are.
type Server struct {
	opts Options
	svc  Service
	log  *slog.Logger
	http http.Handler
	// stopping is closed when Serve begins its shutdown: long-lived MCP
	// streams end then, instead of holding the shutdown for its timeout.
	stopping  chan struct{}
	closeOnce sync.Once
	slots     chan struct{} // one per /v1 request in flight
}

// Defaults of Options.
const (
	DefaultMaxBody = 256 << 20
	DefaultMaxJSON = 16 << 20
	// MaxToolTokens bounds an MCP tool's text result, below Claude Code's
	// 25,000-token cut.
	MaxToolTokens = 20000
	// QueueWait is how long a request waits for a slot when MaxInFlight
	// requests are being served.
	QueueWait = 30 * time.Second
)

// New returns a Server over opts.Service (or a Local over opts.Store).
func New(opts Options) (*Server, error) {
	if opts.Service == nil && opts.Store == nil {
		return nil, errors.New("api: new: a Service or a Store is required")
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxJSON <= 0 {
		opts.MaxJSON = DefaultMaxJSON
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 64
	}
	if opts.Agent == "" {
		opts.Agent = "mcp"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, svc: opts.Service, log: opts.Logger, stopping: make(chan struct{}),
		slots: make(chan struct{}, opts.MaxInFlight)}
	if s.svc == nil {
		s.svc = &Local{Store: opts.Store, Index: opts.Index, Catalog: opts.Catalog, Ingester: opts.Ingester,
			Maintainer: opts.Maintainer, CheckoutOf: opts.Checkout}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.http = s.routes()
	return s, nil
}

// Handler returns the HTTP handler: /healthz, /v1, /mcp and the viewer.
func (s *Server) Handler() http.Handler { return s.http }

// ownDir is the server's own directory, whose checkout memex_read and
// memex_context check against.
func (s *Server) ownDir() string {
	if s.opts.Checkout == nil {
		return ""
	}
	wd, _ := os.Getwd()
	return wd
}

// checkDir accepts the absolute path of a directory the server can see.
func checkDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("checkout %q: not an absolute path: %w", dir, memex.ErrInvalid)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("checkout %q: not a directory the server can read: %w", dir, memex.ErrInvalid)
	}
	return nil
}

func (s *Server) session() string {
	if s.opts.Session == nil {
		return ""
	}
	return s.opts.Session()
}

var errUnavailable = fmt.Errorf("not available on this server: %w", errNotImplemented)

var errNotImplemented = errors.New("not implemented")
