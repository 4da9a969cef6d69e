package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsonerr"
)

// GitHub exports are files of JSON: an array of issues or pull requests
// (or one of them), as `gh issue list --json ...`, `gh pr list --json
// ...` and `gh issue view N --json ...` print them, or as GitHub's REST
// API returns them (GET /repos/O/R/issues, /pulls, /issues/N), and
// arrays of REST comments (GET /repos/O/R/issues/comments), which are
// attached to their issue when it is imported in the same run.
// testdata/github holds one file of each shape; docs/memory.md lists the
// fields read.
//
// Each issue or pull request is one entry of kind issue or pr: its title,
// state, labels, author, dates and URL, its body, then its comments and
// reviews in time order, and for a pull request its branches and files.
// It is named #N (its number) in its project, named after its URL
// (github.com/O/R, as sessions of a checkout of that repository are) or
// Options.Project. An issue is one snapshot: importing a newer export of
// it (a later updatedAt) replaces the entry when the archive can delete
// one, so that #N keeps naming one entry; an older or equal one adds
// nothing.

// ghUser is an author in either shape.
type ghUser struct {
	Login string `json:"login"`
}

// ghLabel is a label: an object with a name, or (some exports) a string.
type ghLabel struct{ Name string }

func (l *ghLabel) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		l.Name = s
		return nil
	}
	var o struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	l.Name = o.Name
	return nil
}

type ghComment struct {
	Author    *ghUser `json:"author"`     // gh
	User      *ghUser `json:"user"`       // REST
	Body      string  `json:"body"`       // both
	CreatedAt string  `json:"createdAt"`  // gh
	Created   string  `json:"created_at"` // REST
	// A review (gh pr --json reviews): its verdict and time.
	State       string `json:"state"`
	SubmittedAt string `json:"submittedAt"`
	// REST comments name their issue by URL.
	IssueURL string `json:"issue_url"`
	PRURL    string `json:"pull_request_url"`
}

func (c ghComment) author() string {
	switch {
	case c.Author != nil && c.Author.Login != "":
		return c.Author.Login
	case c.User != nil:
		return c.User.Login
	}
	return "unknown"
}

func (c ghComment) time() string {
	for _, t := range []string{c.CreatedAt, c.Created, c.SubmittedAt} {
		if t != "" {
			return t
		}
	}
	return ""
}

type ghFile struct {
	Path      string `json:"path"`     // gh
	Filename  string `json:"filename"` // REST /pulls/N/files
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// ghItem is an issue or pull request in either shape.
type ghItem struct {
	Number int       `json:"number"`
	Title  string    `json:"title"`
	State  string    `json:"state"`
	Body   string    `json:"body"`
	Labels []ghLabel `json:"labels"`
	Author *ghUser   `json:"author"`
	User   *ghUser   `json:"user"`
	URL    string    `json:"url"`
	HTML   string    `json:"html_url"`
	Repo   string    `json:"repository_url"`

	CreatedAt, UpdatedAt, ClosedAt, MergedAt string // gh (camelCase)
	Created, Updated, Closed, Merged         string // REST (snake_case)

	Comments json.RawMessage `json:"comments"` // gh: an array; REST: a count
	Reviews  []ghComment     `json:"reviews"`
	Files    []ghFile        `json:"files"`

	HeadRef, BaseRef string
	Head, Base       *struct {
		Ref string `json:"ref"`
	}
	PullRequest json.RawMessage `json:"pull_request"`
	IsDraft     bool            `json:"isDraft"`
	Draft       bool            `json:"draft"`
}

func (it *ghItem) UnmarshalJSON(b []byte) error {
	type plain ghItem
	var p struct {
		plain
		CreatedAt string `json:"createdAt"`
		UpdatedAt string `json:"updatedAt"`
		ClosedAt  string `json:"closedAt"`
		MergedAt  string `json:"mergedAt"`
		Created   string `json:"created_at"`
		Updated   string `json:"updated_at"`
		Closed    string `json:"closed_at"`
		Merged    string `json:"merged_at"`
		HeadRef   string `json:"headRefName"`
		BaseRef   string `json:"baseRefName"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*it = ghItem(p.plain)
	it.CreatedAt, it.UpdatedAt, it.ClosedAt, it.MergedAt = p.CreatedAt, p.UpdatedAt, p.ClosedAt, p.MergedAt
	it.Created, it.Updated, it.Closed, it.Merged = p.Created, p.Updated, p.Closed, p.Merged
	it.HeadRef, it.BaseRef = p.HeadRef, p.BaseRef
	return nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func (it *ghItem) link() string { return firstOf(it.HTML, it.URL) }

func (it *ghItem) isPR() bool {
	return len(it.PullRequest) > 0 && string(it.PullRequest) != "null" || it.Head != nil || it.HeadRef != "" ||
		it.MergedAt != "" || it.Merged != "" || strings.Contains(it.link(), "/pull/") || strings.Contains(it.URL, "/pulls/")
}

// ghProject names the repository of an item's URL: github.com/O/R.
func ghProject(urls ...string) string {
	for _, u := range urls {
		rest := u
		if i := strings.Index(rest, "://"); i >= 0 {
			rest = rest[i+3:]
		}
		host, p, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		if host == "api.github.com" {
			p = strings.TrimPrefix(p, "repos/")
			host = "github.com"
		}
		parts := strings.Split(p, "/")
		if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
			return strings.ToLower(host) + "/" + parts[0] + "/" + parts[1]
		}
	}
	return ""
}

// ghNumber is the issue number at the end of a REST issue or pull URL.
func ghNumber(u string) int {
	n, err := strconv.Atoi(u[strings.LastIndex(u, "/")+1:])
	if err != nil {
		return 0
	}
	return n
}

// runGitHub imports the export files (or the files of directories) in
// opts.Paths.
func runGitHub(ctx context.Context, r *runner) error {
	var files []string
	for _, p := range r.opts.Paths {
		fi, err := os.Stat(p)
		if err != nil {
			msg := fmt.Sprintf("%s: %v", p, err)
			r.rep.FileErrors = append(r.rep.FileErrors, msg)
			r.opts.warn(msg)
			continue
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, "*.json"))
		if len(found) == 0 {
			msg := fmt.Sprintf("%s: no GitHub export files (*.json) found", p)
			r.rep.FileErrors = append(r.rep.FileErrors, msg)
			r.opts.warn(msg)
		}
		files = append(files, found...)
	}
	type keyed struct {
		project string
		number  int
	}
	items := map[keyed]*ghItem{}
	var order []keyed
	extra := map[keyed][]ghComment{} // REST comments, by issue
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		data, err := readFile(f)
		if err != nil {
			msg := fmt.Sprintf("%s: %v", f, err)
			r.rep.FileErrors = append(r.rep.FileErrors, msg)
			r.opts.warn(msg)
			continue
		}
		r.rep.Files++
		r.rep.Bytes += int64(len(data))
		src := &source{path: f, format: GitHub, opts: r.opts, rep: r.rep}
		elems, err := ghElements(data)
		if err != nil {
			src.skip(0, "not a GitHub export", err)
			r.rep.Unusable = append(r.rep.Unusable, fmt.Sprintf("%s: not a GitHub export (want a JSON array of issues, pull requests or comments): %s", f, jsonerr.Describe(err)))
			continue
		}
		taken := 0
		for i, raw := range elems {
			var probe struct {
				Number   *int   `json:"number"`
				IssueURL string `json:"issue_url"`
				PRURL    string `json:"pull_request_url"`
			}
			_ = json.Unmarshal(raw, &probe)
			switch {
			case probe.Number != nil:
				var it ghItem
				if err := json.Unmarshal(raw, &it); err != nil {
					src.skipf(0, "malformed issue", "item %d: %s", i+1, jsonerr.Describe(err))
					continue
				}
				project := r.opts.Project
				if project == "" {
					project = ghProject(it.link(), it.Repo, it.URL)
				}
				if project == "" {
					src.skipf(0, "no repository", "item %d (#%d): no URL names its repository; give --project", i+1, it.Number)
					continue
				}
				k := keyed{project, it.Number}
				if prev, ok := items[k]; !ok {
					order = append(order, k)
					items[k] = &it
				} else if firstOf(it.UpdatedAt, it.Updated) >= firstOf(prev.UpdatedAt, prev.Updated) {
					items[k] = &it
				}
				taken++
			case probe.IssueURL != "" || probe.PRURL != "":
				var c ghComment
				if err := json.Unmarshal(raw, &c); err != nil {
					src.skipf(0, "malformed comment", "item %d: %s", i+1, jsonerr.Describe(err))
					continue
				}
				u := firstOf(c.IssueURL, c.PRURL)
				project := r.opts.Project
				if project == "" {
					project = ghProject(u)
				}
				k := keyed{project, ghNumber(u)}
				extra[k] = append(extra[k], c)
				taken++
			default:
				src.skipf(0, "not an issue", "item %d: neither an issue or pull request (no \"number\") nor a comment (no \"issue_url\")", i+1)
			}
		}
		if taken == 0 && len(elems) > 0 {
			r.rep.Unusable = append(r.rep.Unusable, fmt.Sprintf("%s: no issue, pull request or comment in it; is it a GitHub export?", f))
		}
	}
	src := &source{path: "github", format: GitHub, opts: r.opts, rep: r.rep}
	for _, k := range order {
		rec := ghRecord(k.project, items[k], extra[k])
		keep, err := r.supersede(ctx, rec, "#"+strconv.Itoa(k.number))
		if err != nil {
			return err
		}
		if keep {
			src.emit(rec)
		}
	}
	return r.storeSource(ctx, src)
}

// ghElements reads a file holding an array of objects or one object, or
// several of them one after the other (gh api --paginate prints one array
// per page).
func ghElements(data []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var elems []json.RawMessage
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			if len(elems) == 0 && len(bytes.TrimSpace(data)) == 0 {
				return nil, fmt.Errorf("the file is empty")
			}
			return elems, nil
		} else if err != nil {
			return elems, err
		}
		switch v = bytes.TrimSpace(v); {
		case len(v) > 0 && v[0] == '{':
			elems = append(elems, v)
		case len(v) > 0 && v[0] == '[':
			var page []json.RawMessage
			if err := json.Unmarshal(v, &page); err != nil {
				return elems, err
			}
			elems = append(elems, page...)
		default:
			return elems, fmt.Errorf("a JSON %s where an array or object was expected", jsonKind(v))
		}
	}
}

func jsonKind(v []byte) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "string"
	case v[0] == 't' || v[0] == 'f':
		return "boolean"
	case v[0] == 'n':
		return "null"
	}
	return "number"
}

// supersede decides whether rec, a newer snapshot of what alias names in
// its project, is to be added: not when the archived one is as recent; when
// it is older, the archived one is deleted first (a sink that cannot
// delete keeps both). It reports false for a record to leave out.
func (r *runner) supersede(ctx context.Context, rec Record, alias string) (bool, error) {
	id, err := r.sink.Lookup(ctx, alias, rec.Entry.Project)
	if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrAmbiguous) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("ingest: resolve %s: %w: %w", alias, err, errSink)
	}
	s, ok := r.sink.(interface {
		Get(ctx context.Context, id memex.ID) (memex.Entry, error)
		Delete(ctx context.Context, id memex.ID) error
	})
	if !ok {
		return true, nil
	}
	old, err := s.Get(ctx, id)
	if err != nil {
		return true, nil
	}
	if old.Attrs["updated"] >= rec.Entry.Attrs["updated"] {
		r.rep.Present++
		return false, nil
	}
	if err := s.Delete(ctx, id); err != nil && !errors.Is(err, memex.ErrNotFound) {
		return false, fmt.Errorf("ingest: replace %s: %w: %w", alias, err, errSink)
	}
	return true, nil
}

func ghTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// ghRecord renders an issue or pull request with its comments.
func ghRecord(project string, it *ghItem, extra []ghComment) Record {
	kind, word := memex.KindIssue, "issue"
	if it.isPR() {
		kind, word = memex.KindPR, "pull request"
	}
	state := strings.ToLower(it.State)
	merged := firstOf(it.MergedAt, it.Merged)
	if merged == "" && len(it.PullRequest) > 0 {
		// REST issues list a pull request's merge time inside it.
		var pr struct {
			MergedAt string `json:"merged_at"`
		}
		_ = json.Unmarshal(it.PullRequest, &pr)
		merged = pr.MergedAt
	}
	if merged != "" {
		state = "merged"
	}
	if it.IsDraft || it.Draft {
		state += " (draft)"
	}
	author := "unknown"
	switch {
	case it.Author != nil && it.Author.Login != "":
		author = it.Author.Login
	case it.User != nil && it.User.Login != "":
		author = it.User.Login
	}
	var labels []string
	for _, l := range it.Labels {
		if l.Name != "" {
			labels = append(labels, l.Name)
		}
	}
	var comments []ghComment
	_ = json.Unmarshal(it.Comments, &comments) // a REST count leaves none
	comments = append(comments, extra...)
	for _, rv := range it.Reviews {
		if strings.TrimSpace(rv.Body) != "" || rv.State != "" {
			comments = append(comments, rv)
		}
	}
	sort.SliceStable(comments, func(i, j int) bool { return comments[i].time() < comments[j].time() })

	created, updated, closed := firstOf(it.CreatedAt, it.Created), firstOf(it.UpdatedAt, it.Updated), firstOf(it.ClosedAt, it.Closed)
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s\n", it.Number, it.Title)
	line := word + " · " + state
	if len(labels) > 0 {
		line += " · labels: " + strings.Join(labels, ", ")
	}
	line += " · by " + author
	if created != "" {
		line += " · opened " + created
	}
	if merged != "" {
		line += " · merged " + merged
	} else if closed != "" {
		line += " · closed " + closed
	}
	b.WriteString(line + "\n")
	if u := it.link(); u != "" {
		b.WriteString(u + "\n")
	}
	head, base := it.HeadRef, it.BaseRef
	if it.Head != nil {
		head = it.Head.Ref
	}
	if it.Base != nil {
		base = it.Base.Ref
	}
	if head != "" || base != "" {
		b.WriteString("branch: " + head + " → " + base + "\n")
	}
	if len(it.Files) > 0 {
		b.WriteString("\n")
		for _, f := range it.Files {
			fmt.Fprintf(&b, "+%d -%d\t%s\n", f.Additions, f.Deletions, firstOf(f.Path, f.Filename))
		}
	}
	if body := strings.TrimSpace(it.Body); body != "" {
		b.WriteString("\n" + strings.ReplaceAll(body, "\r\n", "\n") + "\n")
	}
	for _, c := range comments {
		what := "comment"
		if c.State != "" {
			what = "review (" + strings.ToLower(c.State) + ")"
		}
		fmt.Fprintf(&b, "\n--- %s by %s · %s\n", what, c.author(), c.time())
		if body := strings.TrimSpace(c.Body); body != "" {
			b.WriteString(strings.ReplaceAll(body, "\r\n", "\n") + "\n")
		}
	}

	sum := fmt.Sprintf("%s #%d (%s) %s", kind, it.Number, state, cutRunes(strings.TrimSpace(it.Title), 120))
	if len(labels) > 0 {
		sum += " · " + strings.Join(labels, ", ")
	}
	sum += " · " + plural(len(comments), "comment") + " · by " + author
	e := memex.Entry{
		Project: project, Session: "github:" + project, Agent: "github", Kind: kind, Tool: "github",
		Created: ghTime(created), Summary: sum, Aliases: []string{"#" + strconv.Itoa(it.Number)},
		Attrs: map[string]string{"number": strconv.Itoa(it.Number), "state": state, "author": author, "updated": updated},
	}
	if e.Created.IsZero() {
		e.Created = ghTime(updated)
	}
	if u := it.link(); u != "" {
		e.Attrs["url"] = u
	}
	if len(labels) > 0 {
		e.Attrs["labels"] = strings.Join(labels, ",")
	}
	body := []byte(b.String())
	version := updated
	if version == "" {
		version = shortHash(body)
	}
	return Record{Entry: e, Body: body, Key: "github:" + project + "#" + strconv.Itoa(it.Number) + "@" + version}
}
