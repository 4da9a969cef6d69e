package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// The Client is the Service of a running server: each call is one request
// of the HTTP API (two for a show: the metadata, then the lines).

var _ Service = (*Client)(nil)

// setIf sets the query parameters of kv whose values are not empty.
func setIf(q url.Values, kv ...string) url.Values {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return q
}

// nonZero is n as setIf takes it: "" (left out) for 0.
func nonZero(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// decode reads the answer's JSON into v and closes it.
func (c *Client) decode(body io.ReadCloser, op string, v any) error {
	defer body.Close()
	if err := json.NewDecoder(body).Decode(v); err != nil {
		return fmt.Errorf("%s through %s: %w", op, c.Base, err)
	}
	return nil
}

// Add streams req.Body to POST /v1/entries, whatever its size, with the
// metadata in the query string.
func (c *Client) Add(ctx context.Context, req AddRequest) (memex.Entry, error) {
	e := req.Entry
	q := setIf(url.Values{}, "project", e.Project, "session", e.Session, "agent", e.Agent, "kind", string(e.Kind),
		"tool", e.Tool, "input", e.Input, "summary", e.AgentSummary)
	q["alias"] = e.Aliases
	if req.NoRedact {
		q.Set("no_redact", "1")
	}
	if e.Exit != nil {
		q.Set("exit", strconv.Itoa(*e.Exit))
	}
	if !e.Created.IsZero() {
		q.Set("created", e.Created.Format(time.RFC3339Nano))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Attrs)) {
		q.Add("attr", k+"="+e.Attrs[k])
	}
	body := req.Body
	if body == nil {
		body = strings.NewReader("")
	}
	resp, err := c.Do(ctx, "POST", "/v1/entries", q, body, "application/octet-stream")
	if err != nil {
		return memex.Entry{}, err
	}
	var got memex.Entry
	return got, c.decode(resp.Body, "add", &got)
}

func (c *Client) Entry(ctx context.Context, ref, project string) (memex.Entry, error) {
	q := setIf(url.Values{"format": {"json"}, "content": {"0"}}, "project", project)
	var got EntryJSON
	if err := c.GetJSON(ctx, "/v1/entries/"+url.PathEscape(ref), q, &got); err != nil {
		return memex.Entry{}, err
	}
	return got.Entry, nil
}

func (c *Client) Lines(ctx context.Context, req LinesRequest) (io.ReadCloser, error) {
	q := url.Values{}
	if req.From > 1 || req.To > 0 {
		rng := strconv.FormatInt(max(req.From, 1), 10) + ":"
		if req.To > 0 {
			rng += strconv.FormatInt(req.To, 10)
		}
		q.Set("lines", rng)
	}
	resp, err := c.Do(ctx, "GET", "/v1/entries/"+req.ID.String(), q, nil, "")
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func (c *Client) Show(ctx context.Context, req ShowRequest) (ShowResult, error) {
	q := setIf(url.Values{"budget": {strconv.Itoa(req.Budget)}, "header": {"0"}, "format": {"json"}}, "project", req.Project)
	var res DerefResult
	if err := c.GetJSON(ctx, "/v1/entries/"+url.PathEscape(req.Ref), q, &res); err != nil {
		return ShowResult{}, err
	}
	if len(res.Items) != 1 {
		return ShowResult{}, fmt.Errorf("show %s through %s: %d items in the answer, want 1", req.Ref, c.Base, len(res.Items))
	}
	res.Result.Text = res.Text
	return ShowResult{Item: res.Items[0], Result: res.Result}, nil
}

func (c *Client) Search(ctx context.Context, sq Query) (SearchResult, error) {
	q := setIf(url.Values{"q": {sq.Text}}, "project", sq.Project, "session", sq.Session, "agent", sq.Agent,
		"kind", sq.Kind, "tool", sq.Tool, "before", sq.Before, "after", sq.After)
	if sq.Limit > 0 {
		q.Set("limit", strconv.Itoa(sq.Limit))
	}
	if sq.Sessions {
		q.Set("sessions", "1")
	}
	var res SearchResult
	err := c.GetJSON(ctx, "/v1/search", q, &res)
	return res, err
}

func (c *Client) Deref(ctx context.Context, req DerefRequest) (DerefResult, error) {
	var res DerefResult
	if err := c.PostJSON(ctx, "/v1/deref", req, &res); err != nil {
		return DerefResult{}, err
	}
	res.Result.Text = res.Text
	return res, nil
}

func (c *Client) Context(ctx context.Context, req ContextRequest) (ContextResult, error) {
	q := setIf(url.Values{"budget": {strconv.Itoa(req.Budget)}}, "session", req.Session, "agent", req.Agent, "project", req.Project,
		"before", req.Before, "checkout", req.Checkout)
	var res ContextResult
	if err := c.GetJSON(ctx, "/v1/context", q, &res); err != nil {
		return ContextResult{}, err
	}
	res.ContextResult.Text = res.Text
	return res, nil
}

func (c *Client) Sessions(ctx context.Context, f SessionFilter) ([]SessionInfo, error) {
	var res SessionList
	q := setIf(url.Values{}, "project", f.Project, "agent", f.Agent, "limit", nonZero(f.Limit))
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	err := c.GetJSON(ctx, "/v1/sessions", q, &res)
	if res.Sessions == nil {
		res.Sessions = []SessionInfo{}
	}
	return res.Sessions, err
}

func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := c.GetJSON(ctx, "/v1/stats", nil, &st)
	return st, err
}

func (c *Client) Replay(ctx context.Context, req ReplayRequest) ([]EntryJSON, error) {
	q := setIf(url.Values{}, "project", req.Ref.Project, "agent", req.Ref.Agent)
	if req.Content {
		q.Set("content", "1")
	}
	var res SessionEntries
	if err := c.GetJSON(ctx, "/v1/sessions/"+url.PathEscape(req.Ref.Session), q, &res); err != nil {
		return nil, err
	}
	if res.Entries == nil {
		res.Entries = []EntryJSON{}
	}
	return res.Entries, nil
}

// Ingest has the server import. The server reads the paths on its own
// filesystem, whatever its working directory: relative ones are sent
// absolute, and the problems of the paths given name each back as it was
// given, as a local import names it. req.Warn is told the problems of the
// answer (Warnings) once it is in; req.Progress is not called.
func (c *Client) Ingest(ctx context.Context, req IngestRequest) (IngestResult, error) {
	paths, names, err := absPaths(req.Paths)
	if err != nil {
		return IngestResult{}, err
	}
	req.Paths = paths
	var res IngestResult
	if err := c.PostJSON(ctx, "/v1/ingest", req, &res); err != nil {
		return res, err
	}
	renamed := names.rename(res.FileErrors)
	for i, msg := range res.Warnings {
		if n, ok := renamed[msg]; ok {
			res.Warnings[i] = n
		}
	}
	if req.Warn != nil {
		for _, msg := range res.Warnings {
			req.Warn(msg)
		}
	}
	return res, nil
}

// givenPaths remembers the relative paths an import sent as absolute
// ones, to name them in its problems as they were given.
type givenPaths []struct{ given, abs string }

// absPaths resolves paths against the working directory.
func absPaths(paths []string) ([]string, givenPaths, error) {
	var names givenPaths
	out := make([]string, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: %s: %w", p, err)
		}
		out[i] = abs
		if abs != p {
			names = append(names, struct{ given, abs string }{p, abs})
		}
	}
	return out, names, nil
}

// rename rewrites, in place, the problems of the paths given (ingest
// says "PATH: what is wrong", PATH as it was given) to name each relative
// path as the user wrote it, and returns the messages it changed, old to
// new. A path given has at most one such problem, the first that names
// it; the files found under a path are named absolutely either way.
func (names givenPaths) rename(problems []string) map[string]string {
	renamed := map[string]string{}
	used := make([]bool, len(names))
	for i, msg := range problems {
		for j, n := range names {
			if !used[j] && strings.HasPrefix(msg, n.abs+": ") {
				used[j] = true
				problems[i] = n.given + msg[len(n.abs):]
				if _, ok := renamed[msg]; !ok {
					renamed[msg] = problems[i]
				}
				break
			}
		}
	}
	return renamed
}

func (c *Client) Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error) {
	var res ForgetResult
	err := c.PostJSON(ctx, "/v1/forget", req, &res)
	return res, err
}

func (c *Client) Verify(ctx context.Context) (VerifyResult, error) {
	var res VerifyResult
	err := c.PostJSON(ctx, "/v1/verify", struct{}{}, &res)
	return res, err
}

func (c *Client) Reindex(ctx context.Context) (ReindexResult, error) {
	var res ReindexResult
	err := c.PostJSON(ctx, "/v1/reindex", struct{}{}, &res)
	return res, err
}
