package api

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/memex-archive/memex"
)

func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(s.guard)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, fmt.Errorf("no route %s %s: %w", r.Method, r.URL.Path, memex.ErrNotFound))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusMethodNotAllowed, errorBody("method_not_allowed", r.Method+" "+r.URL.Path+" is not allowed"))
	})
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		// "id" names the server by its key (KeyID): a client of another
		// home, whose serve.addr a killed server left naming an address
		// this one now listens on, learns that it is not its server
		// (Client.Healthy).
		hz := map[string]any{"ok": true, "version": s.opts.Version}
		if s.opts.Key != "" {
			hz["id"] = KeyID(s.opts.Key)
		}
		writeJSON(w, http.StatusOK, hz)
	})
	r.Group(func(r chi.Router) {
		r.Use(s.auth)
		r.Route("/v1", func(r chi.Router) {
			r.Use(s.limit)
			r.Post("/entries", s.handleAdd)
			r.Get("/entries/{ref}", s.handleGet)
			r.Post("/deref", s.handleDeref)
			r.Get("/search", s.handleSearch)
			r.Get("/context", s.handleContext)
			r.Get("/sessions", s.handleSessions)
			r.Get("/sessions/*", s.handleSession) // a session's name may hold '/'
			r.Get("/stats", s.handleStats)
			r.Post("/ingest", s.handleIngest)
			r.Post("/forget", s.handleForget)
			r.Post("/verify", s.handleVerify)
			r.Post("/reindex", s.handleReindex)
			r.Group(func(r chi.Router) {
				r.Use(s.needMemory)
				r.Get("/handoff", s.handleHandoff)
				r.Get("/stale", s.handleStale)
				r.Get("/procedures", s.handleProcedures)
				r.Get("/hint", s.handleHint)
				r.Get("/lessons", s.handleLessons)
				r.Post("/distill", s.handleDistill)
			})
		})
		r.Handle("/mcp", s.mcpHandler())
		r.Handle("/mcp/*", s.mcpHandler())
	})
	if s.opts.Viewer != nil {
		r.Post(LoginPath, s.handleLogin)
		r.Group(func(r chi.Router) {
			r.Use(s.viewerAuth)
			r.Handle("/", s.opts.Viewer)
			r.Handle("/*", s.opts.Viewer)
		})
	}
	return r
}

func errorBody(code, msg string) ErrorBody {
	var b ErrorBody
	b.Error.Code, b.Error.Message = code, msg
	return b
}

// auth requires the bearer token when one is set.
func (s *Server) auth(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	want := []byte("Bearer " + s.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			s.writeError(w, r, errUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limit serves at most MaxInFlight requests at once: memory stays bounded
// however many clients connect.
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.slots <- struct{}{}:
		default:
			t := time.NewTimer(QueueWait)
			defer t.Stop()
			select {
			case s.slots <- struct{}{}:
			case <-r.Context().Done():
				return
			case <-t.C:
				w.Header().Set("Retry-After", "5")
				s.writeError(w, r, fmt.Errorf("%d requests in flight: %w", cap(s.slots), memex.ErrBusy))
				return
			}
		}
		defer func() { <-s.slots }()
		next.ServeHTTP(w, r)
	})
}

// addRequest is the JSON form of an add.
type addRequest struct {
	Project       string            `json:"project"`
	Session       string            `json:"session"`
	Agent         string            `json:"agent"`
	Kind          memex.Kind        `json:"kind"`
	Tool          string            `json:"tool"`
	Input         string            `json:"input"`
	Exit          *int              `json:"exit"`
	Created       time.Time         `json:"created"`
	Summary       string            `json:"summary"`
	Aliases       []string          `json:"aliases"`
	Attrs         map[string]string `json:"attrs"`
	NoRedact      bool              `json:"no_redact"`
	Content       *string           `json:"content"`
	ContentBase64 *string           `json:"content_base64"`
}

func isJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json"
}

func (s *Server) handleAdd(w http.ResponseWriter, r *http.Request) {
	var e memex.Entry
	var body io.Reader
	noRedact := false
	if isJSON(r) {
		var req addRequest
		if err := decodeJSON(w, r, s.opts.MaxJSON, &req); err != nil {
			s.writeError(w, r, err)
			return
		}
		e = memex.Entry{Project: req.Project, Session: req.Session, Agent: req.Agent, Kind: req.Kind,
			Tool: req.Tool, Input: req.Input, Exit: req.Exit, Created: req.Created,
			AgentSummary: req.Summary, Aliases: req.Aliases, Attrs: req.Attrs}
		noRedact = req.NoRedact
		switch {
		case req.Content != nil && req.ContentBase64 != nil:
			s.writeError(w, r, fmt.Errorf("add: give content or content_base64, not both: %w", memex.ErrInvalid))
			return
		case req.Content != nil:
			body = strings.NewReader(*req.Content)
		case req.ContentBase64 != nil:
			b, err := base64.StdEncoding.DecodeString(*req.ContentBase64)
			if err != nil {
				s.writeError(w, r, fmt.Errorf("add: content_base64: %v: %w", err, memex.ErrInvalid))
				return
			}
			body = bytes.NewReader(b)
		default:
			// Absent (or null) is an error, as for a JSONL line without
			// content; "" is an empty entry, as an empty raw body is.
			s.writeError(w, r, fmt.Errorf(`add: field "content" or "content_base64" is required ("" archives an empty entry): %w`, memex.ErrInvalid))
			return
		}
	} else {
		var err error
		if e, err = entryFromQuery(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		body = r.Body
		if s.opts.MaxBody > 0 {
			body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
		}
		if noRedact, err = boolParam(r, "add", "no_redact"); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	got, err := s.svc.Add(r.Context(), AddRequest{Entry: e, Body: body, NoRedact: noRedact})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, got)
}

// entryFromQuery reads an add's metadata from the query string.
func entryFromQuery(r *http.Request) (memex.Entry, error) {
	q := r.URL.Query()
	e := memex.Entry{Project: q.Get("project"), Session: q.Get("session"), Agent: q.Get("agent"),
		Kind: memex.Kind(q.Get("kind")), Tool: q.Get("tool"), Input: q.Get("input"),
		AgentSummary: q.Get("summary"), Aliases: q["alias"]}
	for _, kv := range q["attr"] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return e, fmt.Errorf("add: attr %q: want KEY=VALUE: %w", kv, memex.ErrInvalid)
		}
		if e.Attrs == nil {
			e.Attrs = map[string]string{}
		}
		e.Attrs[k] = v
	}
	if v := q.Get("exit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return e, fmt.Errorf("add: exit %q: want an integer: %w", v, memex.ErrInvalid)
		}
		e.Exit = memex.IntPtr(n)
	}
	if v := q.Get("created"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return e, fmt.Errorf("add: created %q: want RFC 3339: %w", v, memex.ErrInvalid)
		}
		e.Created = t
	}
	return e, nil
}

// decodeJSON reads one JSON value of at most max bytes into v.
func decodeJSON(w http.ResponseWriter, r *http.Request, max int64, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, max))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return fmt.Errorf("request body over %d bytes: %w", max, err)
		}
		return fmt.Errorf("request body: %v: %w", err, memex.ErrInvalid)
	}
	// One value: what follows it would be dropped unread.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("request body: text after the JSON value: %w", memex.ErrInvalid)
	}
	return nil
}

// readJSON decodes r's JSON body into v, as every route that reads JSON
// wants it: sent as application/json, at most Options.MaxJSON bytes, no
// unknown field.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if err := needJSON(r); err != nil {
		return err
	}
	return decodeJSON(w, r, s.opts.MaxJSON, v)
}

// answer writes res as JSON, or err when there is one.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, res any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// parseLines parses A:B, A: or A (1-based, inclusive; to 0 = the end).
func parseLines(s string) (from, to int64, err error) { return memex.ParseLineRange(s) }

// intParam reads a non-negative integer (def when absent).
func intParam(r *http.Request, name string, def int) (int, error) {
	n, err := signedParam(r, name, def)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: want a non-negative integer: %w", name, r.URL.Query().Get(name), memex.ErrInvalid)
	}
	return n, nil
}

// signedParam reads an integer of either sign, for a route whose Service
// method judges it: a negative one is then refused in the Service's words,
// as it is without a server.
func signedParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want an integer: %w", name, v, memex.ErrInvalid)
	}
	return n, nil
}

// boolParam reads a query flag: 1 or true, 0, false or absent.
func boolParam(r *http.Request, op, name string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, fmt.Errorf("%s: %s %q: want 1 or 0: %w", op, name, v, memex.ErrInvalid)
	}
}

func wantsJSON(r *http.Request) bool {
	if f := r.URL.Query().Get("format"); f != "" {
		return f == "json"
	}
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// EntryJSON is an entry's metadata with its content, as GET
// /v1/entries?format=json, GET /v1/sessions/{s}?content=1 and memex show
// --json give it: as text in Content when it is valid UTF-8 ("" included),
// else base64 in ContentBase64; never both.
type EntryJSON struct {
	memex.Entry
	Range         string  `json:"range,omitempty"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 string  `json:"content_base64,omitempty"`
}

// WithContent is e with body as its content, in the field that holds it
// exactly.
func WithContent(e memex.Entry, body []byte) EntryJSON {
	out := EntryJSON{Entry: e}
	if utf8.Valid(body) {
		text := string(body)
		out.Content = &text
	} else {
		out.ContentBase64 = base64.StdEncoding.EncodeToString(body)
	}
	return out
}

// Body is the content's bytes; ok is false when j carries no content.
func (j EntryJSON) Body() (body []byte, ok bool, err error) {
	switch {
	case j.Content != nil:
		return []byte(*j.Content), true, nil
	case j.ContentBase64 != "":
		body, err = base64.StdEncoding.DecodeString(j.ContentBase64)
		return body, err == nil, err
	}
	return nil, false, nil
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ref := chi.URLParam(r, "ref")
	project := r.URL.Query().Get("project")
	budget, err := intParam(r, "budget", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	lines := r.URL.Query().Get("lines")
	if budget > 0 {
		if lines != "" {
			s.writeError(w, r, fmt.Errorf("get: lines and budget do not combine: %w", memex.ErrInvalid))
			return
		}
		var res DerefResult
		if r.URL.Query().Get("header") == "0" {
			// The content alone within the budget, as memex show --budget
			// prints it: the header line is neither shown nor counted.
			var sr ShowResult
			sr, err = s.svc.Show(ctx, ShowRequest{Ref: ref, Project: project, Budget: budget})
			res = DerefResult{sr.Result, sr.Item.Content}
		} else {
			res, err = s.svc.Deref(ctx, DerefRequest{Refs: []string{ref}, Budget: budget, Project: project})
			if err == nil && len(res.Items) == 0 {
				_, err = s.svc.Entry(ctx, ref, project)
				if err == nil {
					err = memex.Errorf(memex.ErrNotFound, "%s: not found", ref)
				}
			}
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if wantsJSON(r) {
			writeJSON(w, http.StatusOK, res)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, res.Text)
		return
	}
	from, to := int64(1), int64(0)
	if lines != "" {
		if from, to, err = parseLines(lines); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	withContent := true
	if v := r.URL.Query().Get("content"); v != "" {
		if withContent, err = boolParam(r, "get", "content"); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	e, err := s.svc.Entry(ctx, ref, project)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	id := e.ID
	open := func() (io.ReadCloser, error) { return s.svc.Lines(ctx, LinesRequest{ID: id, From: from, To: to}) }
	if !withContent {
		// The metadata alone (content=0): what a client reads before it
		// asks for the lines it wants.
		writeJSON(w, http.StatusOK, EntryJSON{Entry: e})
		return
	}
	if wantsJSON(r) {
		// Streamed: memory stays bounded whatever the entry's size.
		w.Header().Set("Content-Type", "application/json")
		indent := ""
		if n, _ := strconv.Atoi(r.URL.Query().Get("indent")); n > 0 && n <= 8 {
			indent = strings.Repeat(" ", n)
		}
		cw := &countingWriter{w: w}
		err := WriteEntryJSON(cw, e, lines, open, indent)
		if err != nil && cw.n == 0 {
			s.writeError(w, r, err)
		} else if err != nil {
			s.log.Warn("get: body copy", "id", id, "err", err)
		}
		return
	}
	rc, err := open()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("X-Memex-Id", id.String())
	if lines == "" {
		w.Header().Set("Content-Length", strconv.FormatInt(e.Bytes, 10))
	}
	if _, err := io.Copy(w, rc); err != nil {
		s.log.Warn("get: body copy", "id", id, "err", err)
	}
}

// countingWriter counts what went through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (s *Server) handleDeref(w http.ResponseWriter, r *http.Request) {
	var req DerefRequest
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := checkoutParam(req.Checkout); err != nil {
		s.writeError(w, r, fmt.Errorf("deref: %w", err))
		return
	}
	res, err := s.svc.Deref(r.Context(), req)
	s.answer(w, r, res, err)
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, err := intParam(r, "limit", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sessions, err := boolParam(r, "search", "sessions")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	query := Query{Text: q.Get("q"), Limit: limit, Project: q.Get("project"), Session: q.Get("session"),
		Agent: q.Get("agent"), Kind: q.Get("kind"), Tool: q.Get("tool"), Before: q.Get("before"), After: q.Get("after"),
		Sessions: sessions}
	res, err := s.svc.Search(r.Context(), query)
	s.answer(w, r, res, err)
}

func (s *Server) handleContext(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	budget, err := signedParam(r, "budget", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req := ContextRequest{Session: q.Get("session"), Agent: q.Get("agent"), Project: q.Get("project"), Budget: budget, Before: q.Get("before"),
		Checkout: q.Get("checkout")}
	if err := checkoutParam(req.Checkout); err != nil {
		s.writeError(w, r, fmt.Errorf("context: %w", err))
		return
	}
	res, err := s.svc.Context(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeTextOrJSON(w, q.Get("format"), res.Text, res)
}

func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := SessionFilter{Project: q.Get("project"), Agent: q.Get("agent")}
	var err error
	if f.Limit, err = signedParam(r, "limit", 0); err != nil {
		s.writeError(w, r, fmt.Errorf("sessions: %w", err))
		return
	}
	if v := q.Get("since"); v != "" {
		if f.Since, err = memex.ParseTime(v, time.Now()); err != nil {
			s.writeError(w, r, fmt.Errorf("sessions: since: %w", err))
			return
		}
	}
	list, err := s.svc.Sessions(r.Context(), f)
	s.answer(w, r, SessionList{Sessions: list}, err)
}

// SessionEntries is what GET /v1/sessions/{session} answers: the
// session's entries in order, with their content for ?content=1.
type SessionEntries struct {
	Session string      `json:"session"`
	Entries []EntryJSON `json:"entries"`
}

// handleSession answers a session's entries in order; with ?content=1
// each also carries its exact content, as GET /v1/entries/{ref}?format=json
// gives it ("content", or "content_base64" when not valid UTF-8): what
// memex replay --full prints.
func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "*")
	if r.URL.RawPath != "" {
		// chi routed on the escaped path: the name came escaped too.
		if n, err := url.PathUnescape(name); err == nil {
			name = n
		}
	}
	withContent, err := boolParam(r, "session", "content")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ref := memex.SessionRef{Session: name, Project: r.URL.Query().Get("project"), Agent: r.URL.Query().Get("agent")}
	entries, err := s.svc.Replay(r.Context(), ReplayRequest{Ref: ref, Content: withContent})
	s.answer(w, r, SessionEntries{Session: name, Entries: entries}, err)
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	st, err := s.svc.Stats(r.Context())
	s.answer(w, r, st, err)
}

func (s *Server) handleIngest(w http.ResponseWriter, r *http.Request) {
	var req IngestRequest
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.checkIngestPaths(r, req.Paths); err != nil {
		s.writeError(w, r, err)
		return
	}
	rep, err := s.svc.Ingest(r.Context(), req)
	s.answer(w, r, rep, err)
}
