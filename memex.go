// Package memex holds the domain vocabulary shared by every other package:
// entry identifiers, the entry record, kinds, and the sentinel errors that
// the transports map to exit codes and HTTP statuses.
//
// It imports nothing of the project and no third-party type but the ULID
// generator behind ID. Everything that stores, indexes, reads or serves
// entries lives in a package of its own (see docs/architecture in the
// README's tour).
package memex

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// Sentinel errors. Packages wrap them with context ("archive: get 01J...:
// not found") and callers match them with errors.Is. cmd/memex maps them to
// exit codes and api maps them to HTTP statuses, each in one place.
var (
	// ErrNotFound means an ID, alias, session or body names nothing.
	ErrNotFound = errors.New("not found")
	// ErrInvalid means the caller's input is malformed (a bad ID, a bad
	// line range, an empty alias, ...).
	ErrInvalid = errors.New("invalid input")
	// ErrAmbiguous means an alias names entries in several projects, or a
	// session name several sessions; the wrapped message lists them.
	ErrAmbiguous = errors.New("ambiguous name")
	// ErrCorrupt means stored data failed to decode or to match its hash.
	ErrCorrupt = errors.New("corrupt data")
	// ErrBudgetTooSmall means a token budget cannot hold anything useful;
	// the wrapped message names the minimum.
	ErrBudgetTooSmall = errors.New("budget too small")
	// ErrBusy means another process holds the store and did not release it
	// in time.
	ErrBusy = errors.New("store busy")
	// ErrSchema means the store was written by a newer (or unknown) memex.
	ErrSchema = errors.New("unsupported store schema")
	// ErrDiskFull means a write was refused because the disk holding the
	// store is (nearly) full; nothing was written.
	ErrDiskFull = errors.New("disk full")
)

// ID is an entry's stable index: a ULID, 16 bytes, time-ordered, written as
// 26 Crockford base32 characters. The zero ID is invalid. IDs are
// comparable values; byte order is time order.
type ID [16]byte

// String returns the 26-character Crockford form.
func (id ID) String() string { return ulid.ULID(id).String() }

// IsZero reports whether id is the zero (invalid) ID.
func (id ID) IsZero() bool { return id == ID{} }

// Time returns the millisecond timestamp encoded in the ID.
func (id ID) Time() time.Time { return ulid.Time(ulid.ULID(id).Time()).UTC() }

// Compare orders IDs by time, then by their random part.
func (id ID) Compare(other ID) int { return ulid.ULID(id).Compare(ulid.ULID(other)) }

// MarshalText implements encoding.TextMarshaler.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *ID) UnmarshalText(b []byte) error {
	p, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = p
	return nil
}

// ParseID parses the 26-character form, case-insensitively. It fails with
// ErrInvalid for anything else, including the zero ID.
func ParseID(s string) (ID, error) {
	u, err := ulid.ParseStrict(strings.ToUpper(s))
	if err != nil || u == (ulid.ULID{}) {
		return ID{}, fmt.Errorf("%w: %q is not an entry ID (26 Crockford base32 characters)", ErrInvalid, s)
	}
	return ID(u), nil
}

// LooksLikeID reports whether s has the shape of an ID (so that a resolver
// tries it as an ID before trying it as an alias). Every alias of every
// imported record is checked, and most are not 26 bytes long: those are
// answered without building ParseID's error. (Only a string with a
// non-ASCII letter, such as "ſ", can change its length in ParseID's
// upper-casing, so only such a string is parsed whatever its length.)
func LooksLikeID(s string) bool {
	if len(s) != ulid.EncodedSize && ascii(s) {
		return false
	}
	_, err := ParseID(s)
	return err == nil
}

// CheckAlias says why a cannot name an entry: it is empty (or spaces), or
// has the form of an entry ID, which it would hide; nil when it can. The
// error is of the class ErrInvalid.
func CheckAlias(a string) error {
	if strings.TrimSpace(a) == "" {
		return Errorf(ErrInvalid, "an alias may not be empty")
	}
	if LooksLikeID(a) {
		return Errorf(ErrInvalid, "alias %q has the form of an entry ID, which it would hide", a)
	}
	return nil
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

// NewID returns a new ID for time t. IDs made by one process are strictly
// increasing for non-decreasing t (monotonic within a millisecond).
func NewID(t time.Time) ID {
	idMu.Lock()
	defer idMu.Unlock()
	ms := ulid.Timestamp(t)
	u, err := ulid.New(ms, idEntropy)
	if err != nil {
		// The monotonic reader overflows only after 2^80 IDs within one
		// millisecond, or fails if the system's random source fails.
		u = ulid.MustNew(ms, rand.Reader)
	}
	return ID(u)
}

// IDFloor returns the smallest ID of time t (for range scans).
func IDFloor(t time.Time) ID {
	var id ID
	_ = (*ulid.ULID)(&id).SetTime(ulid.Timestamp(t))
	return id
}

// Kind says what an entry is.
type Kind string

// The kinds memex knows. Other values are accepted and kept as given.
const (
	KindTool      Kind = "tool"      // a tool call with its output
	KindReasoning Kind = "reasoning" // a thinking / reasoning block
	KindMessage   Kind = "message"   // user or assistant text
	KindNote      Kind = "note"      // an agent- or user-written note
	KindCommit    Kind = "commit"    // a VCS commit
	KindTag       Kind = "tag"       // a VCS tag, naming a commit
	KindIssue     Kind = "issue"     // an issue of the project's tracker, with its comments
	KindPR        Kind = "pr"        // a pull (merge) request, with its comments and reviews
	KindEvent     Kind = "event"     // a host event: compaction boundary, session start, ...
	// KindLesson is a failure lesson distilled from a session (package
	// memory): its Attrs hold "status" (fixed, abandoned or reverted) and
	// "cites" (the IDs of its evidence, comma-separated).
	KindLesson Kind = "lesson"
)

// KindNames are the names of the kinds memex writes itself, as shell
// completion offers them.
var KindNames = []string{string(KindTool), string(KindReasoning), string(KindMessage), string(KindNote),
	string(KindCommit), string(KindTag), string(KindIssue), string(KindPR), string(KindEvent), string(KindLesson)}

// Entry is the metadata of one archived unit. The body (the exact content)
// is stored and read separately; everything here is readable without
// touching it.
type Entry struct {
	ID      ID        `json:"id"`
	Project string    `json:"project,omitempty"`
	Session string    `json:"session,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Kind    Kind      `json:"kind"`
	Tool    string    `json:"tool,omitempty"`
	Input   string    `json:"input,omitempty"` // the command or tool arguments
	Exit    *int      `json:"exit,omitempty"`  // exit status when known
	Created time.Time `json:"created"`

	Bytes  int64 `json:"bytes"`  // raw body size
	Lines  int64 `json:"lines"`  // number of lines of the body (a last line without '\n' counts)
	Tokens int64 `json:"tokens"` // body tokens under memex's tokenizer
	// TokensEstimated is set when Tokens was extrapolated from samples
	// (bodies over the archive's exact-count limit) rather than counted.
	TokensEstimated bool `json:"tokens_estimated,omitempty"`

	// Summary is derived from the content at write time (deterministic);
	// AgentSummary is what the writer supplied, shown first when present.
	Summary      string `json:"summary"`
	AgentSummary string `json:"agent_summary,omitempty"`

	Hash    string   `json:"hash"` // "sha256:<hex>" of the body
	Aliases []string `json:"aliases,omitempty"`

	// Attrs carries format-specific facts (host record ids, parent session,
	// compaction markers) that have no field of their own.
	Attrs map[string]string `json:"attrs,omitempty"`

	// Redacted is how many credentials were replaced with
	// "[REDACTED:kind]" before the entry was stored (in its body, input,
	// summaries and attrs); 0 when nothing was changed. The content read
	// back is what was stored, so a reader told Redacted > 0 knows that
	// some of it is not what the tool printed.
	Redacted int `json:"redacted,omitempty"`
}

// SessionRef names a session: the entries of one agent conversation. A
// session's identity is its name (the host's session or thread id) with
// its project and its agent: the same name in two projects (two models run
// on the same task), or from two agents, is two sessions. Entries that
// carry no project (a hook given no working directory, a block compressed
// without one) join the one session of their name that has a project. An
// empty Project or Agent in a ref matches any, so a ref that gives the name
// alone may match several sessions; readers then fail with ErrAmbiguous,
// listing them.
type SessionRef struct {
	Session string `json:"session"`
	Project string `json:"project,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// String is the name with what of the identity is known, as errors and
// listings show it: "NAME (agent A, project P)".
func (r SessionRef) String() string {
	var parts []string
	if r.Agent != "" {
		parts = append(parts, "agent "+r.Agent)
	}
	if r.Project != "" {
		parts = append(parts, "project "+r.Project)
	}
	if len(parts) == 0 {
		return r.Session
	}
	return r.Session + " (" + strings.Join(parts, ", ") + ")"
}

// SessionRef returns the identity of e's session (zero when e belongs to
// none).
func (e *Entry) SessionRef() SessionRef {
	if e.Session == "" {
		return SessionRef{}
	}
	return SessionRef{Session: e.Session, Project: e.Project, Agent: e.Agent}
}

// IsCompaction reports whether e marks a point where the agent's context
// was compacted (the ingest readers set Attrs["event"]).
func (e *Entry) IsCompaction() bool {
	switch e.Attrs["event"] {
	case "compact_boundary", "compacted", "compaction":
		return true
	}
	return false
}

// DisplaySummary is the line shown for the entry: the agent's own summary
// when given, else the derived one, followed by "· N secrets redacted"
// when redaction changed the entry.
func (e *Entry) DisplaySummary() string {
	s := e.Summary
	if e.AgentSummary != "" {
		s = e.AgentSummary
	}
	if e.Redacted > 0 {
		note := RedactedNote(e.Redacted)
		if s == "" {
			return note
		}
		return s + " · " + note
	}
	return s
}

// RedactedNote is how an entry's Redacted count reads in a summary line
// or a header: "1 secret redacted", "3 secrets redacted".
func RedactedNote(n int) string {
	if n == 1 {
		return "1 secret redacted"
	}
	return strconv.Itoa(n) + " secrets redacted"
}

// ParseLineRange parses a line range as users write it: "A:B" (lines A to
// B, 1-based, inclusive), "A:" (A to the end, returned as to = 0) or "A"
// (line A alone). Anything else is ErrInvalid.
func ParseLineRange(s string) (from, to int64, err error) {
	bad := func(format string, args ...any) error {
		return Errorf(ErrInvalid, "line range %q: %s", s, fmt.Sprintf(format, args...)).WithHint("want A:B (1-based, inclusive), A: or A")
	}
	a, b, colon := strings.Cut(s, ":")
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" {
		return 0, 0, bad("no first line")
	}
	if from, err = strconv.ParseInt(a, 10, 64); err != nil {
		return 0, 0, bad("%q is not a line number", a)
	}
	if from < 1 {
		return 0, 0, bad("lines count from 1")
	}
	switch {
	case !colon:
		to = from
	case b == "":
		to = 0
	default:
		if to, err = strconv.ParseInt(b, 10, 64); err != nil {
			return 0, 0, bad("%q is not a line number", b)
		}
		if to < from {
			return 0, 0, bad("line %d comes before line %d", to, from)
		}
	}
	return from, to, nil
}

// Hit is one search result: the entry's ID and the facts a reader needs to
// choose whether to dereference it. The index produces hits; the HTTP and
// MCP transports return them as they are.
type Hit struct {
	ID      ID        `json:"id"`
	Score   float64   `json:"score"`
	Summary string    `json:"summary"`
	Snippet string    `json:"snippet"` // exact bytes of the content (or input) around the matching terms; "" when the words matched elsewhere
	Tokens  int64     `json:"tokens"`  // what a full deref would cost
	Session string    `json:"session,omitempty"`
	Project string    `json:"project,omitempty"`
	Agent   string    `json:"agent,omitempty"`
	Kind    Kind      `json:"kind,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Exit    *int      `json:"exit,omitempty"`
	Created time.Time `json:"created"`
	Aliases []string  `json:"aliases,omitempty"`
}

// IntPtr returns a pointer to v, for Entry.Exit.
func IntPtr(v int) *int { return &v }

// Body is the source of an entry's content for writers: any reader. Its
// bytes are stored exactly.
type Body = io.Reader
