package deref

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// The states of a piece of file evidence checked against the checkout.
const (
	// MarkCurrent: the lines the entry showed stand in the file verbatim,
	// at the same place (or, Moved, elsewhere in it).
	MarkCurrent = "current"
	// MarkChanged: the file no longer holds those lines; Line and Now
	// name the first that differs.
	MarkChanged = "changed"
	// MarkGone: the file is no longer in the checkout.
	MarkGone = "gone"
)

// Mark is the outcome of checking one span of file lines an entry showed
// against the file as it is now.
type Mark struct {
	State string `json:"state"` // current, changed or gone
	Path  string `json:"path"`  // relative to the checkout's root when inside it
	From  int    `json:"from"`  // the lines the entry showed, 1-based, inclusive
	To    int    `json:"to"`
	// Moved is the line where the same lines now start, when they stand
	// elsewhere in the file (State current).
	Moved int `json:"moved,omitempty"`
	// Line is the first line (of the file, as the entry numbered it) that
	// differs, and Now what the file holds there ("" past its end), when
	// State is changed and the entry's content was read.
	Line int    `json:"line,omitempty"`
	Now  string `json:"now,omitempty"`
}

// Checkout checks the file evidence of entries (see summarize.Shows)
// against a working tree: only entries of its project, only the files
// they name, each file read at most once, the whole within a time bound.
// A Checkout serves one request; it is safe for concurrent use.
type Checkout struct {
	// Root is the checkout's root directory (absolute).
	Root string
	// Project is the checkout's project name; entries of other projects
	// are not checked ("" checks every entry).
	Project string
	// Timeout bounds the time spent checking, from the first check on;
	// zero means DefaultCheckTimeout. Entries met after it are not marked.
	Timeout time.Duration
	// MaxFile is the largest file read; larger ones are not checked. Zero
	// means 8 MiB.
	MaxFile int64

	mu       sync.Mutex
	deadline time.Time
	files    map[string]*checkedFile
}

// DefaultCheckTimeout is the time bound of a Checkout whose Timeout is
// zero.
const DefaultCheckTimeout = 500 * time.Millisecond

type checkedFile struct {
	lines []string
	gone  bool
	skip  bool // too large, unreadable, a directory
}

// NewCheckout returns a Checkout of the working tree at root for project.
func NewCheckout(root, project string) *Checkout {
	return &Checkout{Root: root, Project: project}
}

// Check marks the file evidence of e: the spans of its "shows" attribute,
// or, for entries archived without it, those found in its content (body
// is called for it, and for the first differing line of a changed span;
// nil: not read). It returns nil when e shows no file of this checkout,
// is of another project, or the time bound has passed.
func (c *Checkout) Check(ctx context.Context, e memex.Entry, body func() ([]byte, error)) []Mark {
	if c == nil || c.Root == "" || e.Kind != memex.KindTool || c.Project != "" && e.Project != c.Project {
		return nil
	}
	if !c.inTime() || ctx.Err() != nil {
		return nil
	}
	var spans []summarize.Shown
	if attr, ok := e.Attrs["shows"]; ok {
		spans = summarize.DecodeShown(attr)
	} else if body != nil && summarize.MayShow(e.Tool, e.Input) {
		b, err := body()
		if err != nil {
			return nil
		}
		spans = summarize.Shows(e.Tool, e.Input, b)
	}
	var marks []Mark
	var lines map[int][]string // body spans by index, read once when needed
	for i, s := range spans {
		if !c.inTime() {
			break
		}
		rel, full, ok := c.locate(s.Path, e.Attrs["cwd"])
		if !ok {
			continue
		}
		f := c.file(full)
		if f.skip {
			continue
		}
		m := Mark{Path: rel, From: s.From, To: s.To()}
		switch {
		case f.gone:
			m.State = MarkGone
		case s.From-1+s.Count <= len(f.lines) && summarize.LinesSum(f.lines[s.From-1:s.From-1+s.Count]) == s.Sum:
			m.State = MarkCurrent
		default:
			if at := findRun(f.lines, s.Count, s.Sum); at > 0 {
				m.State, m.Moved = MarkCurrent, at
				break
			}
			m.State = MarkChanged
			if s.Lines == nil && body != nil {
				if lines == nil {
					lines = map[int][]string{}
					if b, err := body(); err == nil {
						for j, d := range summarize.Shows(e.Tool, e.Input, b) {
							lines[j] = d.Lines
						}
					}
				}
				s.Lines = lines[i]
			}
			if len(s.Lines) == s.Count {
				for j, want := range s.Lines {
					n := s.From + j
					now := ""
					if n <= len(f.lines) {
						now = f.lines[n-1]
					}
					if n > len(f.lines) || now != want {
						m.Line, m.Now = n, now
						break
					}
				}
			}
		}
		marks = append(marks, m)
	}
	return marks
}

// Expired reports whether the time bound has passed (a check started
// it), so that a caller listing many entries can say its list is partial.
func (c *Checkout) Expired() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.deadline.IsZero() && !time.Now().Before(c.deadline)
}

func (c *Checkout) inTime() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deadline.IsZero() {
		d := c.Timeout
		if d <= 0 {
			d = DefaultCheckTimeout
		}
		c.deadline = time.Now().Add(d)
	}
	return time.Now().Before(c.deadline)
}

// locate maps a shown path to the checkout: a relative path is relative
// to the repository root it was recorded in; an absolute one counts when
// it lies inside Root, or inside the entry's working directory (taken to
// be that checkout's root).
func (c *Checkout) locate(p, cwd string) (rel, full string, ok bool) {
	root := filepath.Clean(c.Root)
	inside := func(base, p string) (string, bool) {
		r, err := filepath.Rel(base, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		return r, true
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		if _, ok := inside(root, filepath.Join(root, p)); !ok {
			return "", "", false
		}
		return filepath.ToSlash(filepath.Clean(p)), filepath.Join(root, p), true
	}
	if r, ok := inside(root, filepath.Clean(p)); ok {
		return filepath.ToSlash(r), filepath.Clean(p), true
	}
	if cwd != "" && filepath.IsAbs(cwd) {
		if r, ok := inside(filepath.Clean(cwd), filepath.Clean(p)); ok {
			return filepath.ToSlash(r), filepath.Join(root, r), true
		}
	}
	return "", "", false
}

func (c *Checkout) file(full string) *checkedFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.files[full]; ok {
		return f
	}
	if c.files == nil {
		c.files = map[string]*checkedFile{}
	}
	f := &checkedFile{}
	c.files[full] = f
	max := c.MaxFile
	if max <= 0 {
		max = 8 << 20
	}
	fi, err := os.Stat(full)
	switch {
	case os.IsNotExist(err):
		f.gone = true
		return f
	case err != nil || !fi.Mode().IsRegular() || fi.Size() > max:
		f.skip = true
		return f
	}
	b, err := os.ReadFile(full)
	if err != nil {
		f.skip = true
		return f
	}
	if len(b) > 0 {
		b = bytes.TrimSuffix(b, []byte("\n"))
		f.lines = strings.Split(string(b), "\n")
		for i, l := range f.lines {
			f.lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return f
}

// findRun returns the 1-based line where n lines with sum start in lines,
// or 0.
func findRun(lines []string, n int, sum string) int {
	if n <= 0 || n > len(lines) {
		return 0
	}
	for i := 0; i+n <= len(lines); i++ {
		if summarize.LinesSum(lines[i:i+n]) == sum {
			return i + 1
		}
	}
	return 0
}

// Worst is the state that sums up marks: gone, else changed, else
// current; "" for none.
func Worst(marks []Mark) string {
	state := ""
	for _, m := range marks {
		switch {
		case m.State == MarkGone:
			return MarkGone
		case m.State == MarkChanged:
			state = MarkChanged
		case state == "":
			state = MarkCurrent
		}
	}
	return state
}

// MarkText renders marks for a summary line or a deref header, short:
// "file current: auth/token.go:12-40", "file changed since: auth/token.go
// line 14 now `...`", "file gone: auth/token.go". "" for none.
func MarkText(marks []Mark) string {
	if len(marks) == 0 {
		return ""
	}
	state := Worst(marks)
	var m Mark
	for _, x := range marks {
		if x.State == state {
			m = x
			break
		}
	}
	var s string
	switch state {
	case MarkGone:
		s = "file gone: " + m.Path
	case MarkChanged:
		s = "file changed since: " + m.Path + ":" + strconv.Itoa(m.From) + "-" + strconv.Itoa(m.To)
		if m.Line > 0 {
			now := strings.Join(strings.Fields(m.Now), " ")
			if len(now) > 60 {
				now = now[:57] + "..."
			}
			if m.Line > 0 && m.Now == "" {
				s += " (line " + strconv.Itoa(m.Line) + " now past the end or empty)"
			} else {
				s += " (line " + strconv.Itoa(m.Line) + " now `" + strings.ToValidUTF8(now, "?") + "`)"
			}
		}
	default:
		s = "file current: " + m.Path + ":" + strconv.Itoa(m.From) + "-" + strconv.Itoa(m.To)
		if m.Moved > 0 {
			s += " (moved to line " + strconv.Itoa(m.Moved) + ")"
		}
	}
	if len(marks) > 1 {
		s += " +" + strconv.Itoa(len(marks)-1) + " more"
	}
	return s
}

// CheckEntries checks the evidence of entries against c (nil marks
// without a checkout), reading a body from the store only for an entry
// archived without its "shows" attribute that may show file lines, all
// within c's time bound.
func (r *Reader) CheckEntries(ctx context.Context, c *Checkout, entries []memex.Entry) [][]Mark {
	marks := make([][]Mark, len(entries))
	if c == nil {
		return marks
	}
	for i, e := range entries {
		marks[i] = c.Check(ctx, e, r.bodyOf(ctx, e.ID))
	}
	return marks
}

// bodyOf returns a function reading id's body once.
func (r *Reader) bodyOf(ctx context.Context, id memex.ID) func() ([]byte, error) {
	var b []byte
	var err error
	done := false
	return func() ([]byte, error) {
		if !done {
			done = true
			rc, berr := r.store.Body(ctx, id)
			if err = berr; err == nil {
				var buf bytes.Buffer
				_, err = buf.ReadFrom(rc)
				rc.Close()
				b = buf.Bytes()
			}
		}
		return b, err
	}
}
