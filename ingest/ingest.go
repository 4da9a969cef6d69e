package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsonerr"
)

// Format names a transcript format.
type Format string

// The formats Run reads.
const (
	ClaudeCode   Format = "claude-code"
	Codex        Format = "codex"
	OpenCode     Format = "opencode"
	MiniSWEAgent Format = "mini-swe-agent"
	SWEAgent     Format = "swe-agent"
	JSONL        Format = "jsonl"
	Gemini       Format = "gemini"
	Auto         Format = "auto"
	// Git reads a repository's history (see git.go), GitHub an export
	// of issues and pull requests (see github.go).
	Git    Format = "git"
	GitHub Format = "github"
)

// Formats lists the accepted format names, for usage text.
var Formats = []Format{ClaudeCode, Codex, OpenCode, Gemini, MiniSWEAgent, SWEAgent, JSONL, Auto, Git, GitHub}

// ParseFormat checks a format name; an unknown name is memex.ErrInvalid.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("ingest: %w", memex.Errorf(memex.ErrInvalid, "unknown format %q (want one of %s)", s, FormatList(Formats)))
}

// FormatNames are the names of fs, as a FORMAT argument takes them.
func FormatNames(fs []Format) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return names
}

// FormatList is the names of fs separated by commas, for usage text.
func FormatList(fs []Format) string { return strings.Join(FormatNames(fs), ", ") }

// Record is one entry a parser produced, before the write policy and
// dedupe.
type Record struct {
	Entry memex.Entry // metadata; ID is zero (the sink derives it from Created)
	Body  []byte      // the exact content
	Key   string      // stable identity of the record (see the package doc)
	// HookKey, when set, is the key a host's hook gives the same call when
	// it cannot know Key (OpenCode's plugin knows the call id, not the
	// part id): an entry found under it is the call, archived first by
	// the hook, and is completed (see completeHooked).
	HookKey string
}

// Sink is what Run writes to; *archive.Store satisfies it. Add stores body
// under e and returns the stored metadata; Lookup returns the entry that an
// alias names in one project's scope (project "" included), never another
// project's, and memex.ErrNotFound for a Key never added there; GetState
// returns memex.ErrNotFound for a state never set.
type Sink interface {
	Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error)
	Lookup(ctx context.Context, alias, project string) (memex.ID, error)
	GetState(ctx context.Context, key string) ([]byte, error)
	SetState(ctx context.Context, key string, value []byte) error
}

// Options configures Run. The zero value reads nothing: Format is required.
type Options struct {
	Format Format
	// Paths are files or directories. Empty: the format's default
	// locations under Home (see DefaultPaths).
	Paths []string
	// Home replaces the user's home directory for default locations.
	Home string
	// Project, when set, replaces the project detected from each session's
	// working directory.
	Project string
	// Policy is the write policy: what is stored of each record (its
	// entry and body; for memex, internal/service applies the redaction
	// every write path shares), with the replacements it made by kind,
	// which the Report counts. It must be idempotent and may return body
	// itself. It is applied to every record before its Key is looked up,
	// on the goroutines that read the files (so it must be safe for
	// concurrent use), and to a record whose Key is archived already
	// compares it with what is stored. Nil stores records as they are.
	Policy func(e memex.Entry, body []byte) (memex.Entry, []byte, map[string]int)
	// Full ignores the stored per-file progress and reads every file whole
	// (Key dedupe still prevents duplicates).
	Full bool
	// SettleAfter is how long a Claude Code file must be left untouched
	// before a tool call without a result at its end is archived without
	// one. Zero means one hour; a negative value archives it at once.
	SettleAfter time.Duration
	// Warn receives one line per problem, "file:line: reason". Nil: dropped
	// (they are still counted in the Report).
	Warn func(msg string)
	// Progress, when set, is called after each file (and once before the
	// first) with the running totals, for a progress bar.
	Progress func(Progress)
	// Now replaces time.Now (tests).
	Now func() time.Time
	// Prepare, when set, does ahead of the sink's Add of e, on a goroutine
	// of its own, what that Add can do without the sink (hashing,
	// counting, summarising and compressing body: archive.Store.Prepare)
	// and returns the reader Add is then given as e's body. Nil: Add reads
	// body as it is.
	Prepare func(e memex.Entry, body []byte) io.Reader
	// Added, when set, is called with each entry the sink added (as the
	// sink returned it, ID included) and its exact body as stored
	// (after Policy), for an index fed as the import goes (catchup.Feeder).
	// body is not changed afterwards; Added may keep it.
	Added func(e memex.Entry, body []byte)

	// Since and Max limit a git history to the commits after Since and
	// to the Max most recent ones (zero: no limit); MaxPatch bounds the
	// patch kept of one commit (0: DefaultMaxPatch).
	Since    time.Time
	Max      int
	MaxPatch int
}

// Progress is the running state passed to Options.Progress.
type Progress struct {
	Files      int    // files finished
	TotalFiles int    // files found
	Bytes      int64  // bytes finished
	TotalBytes int64  // bytes found
	File       string // the file just finished ("" before the first)
	// Commits and TotalCommits count a git history's commits read and
	// to read.
	Commits      int
	TotalCommits int
}

// Report is the outcome of Run. Its JSON form is stable (cmd prints it for
// --json).
type Report struct {
	Files     int `json:"files"`     // files read (changed or new)
	Unchanged int `json:"unchanged"` // files skipped because their progress says nothing changed
	Sessions  int `json:"sessions"`  // distinct sessions seen in the files read
	Added     int `json:"added"`     // entries added
	Present   int `json:"present"`   // entries already in the archive (Key found)
	// Differ counts, of Present, the records whose Key was found on an
	// entry of other content: another run of the same session (two models
	// run on the same tasks, imported into one project). They are not
	// archived; importing each run under its own project keeps both.
	Differ int `json:"differ,omitempty"`
	// Completed counts the tool calls a hook archived first that the
	// transcript completed (see completeHooked).
	Completed int `json:"completed,omitempty"`
	// Skipped counts malformed input by reason ("malformed json", ...).
	Skipped map[string]int `json:"skipped,omitempty"`
	// Unknown counts records of types no parser knows, by "format:type".
	Unknown map[string]int `json:"unknown,omitempty"`
	// Ignored counts known records deliberately not archived (metadata,
	// hook progress, empty thinking, injected context), by "format:type".
	Ignored  map[string]int `json:"ignored,omitempty"`
	Redacted int            `json:"redacted"` // replacements Options.Policy made (secrets redacted)
	// RedactedKinds counts the replacements by kind.
	RedactedKinds map[string]int `json:"redacted_kinds,omitempty"`
	// InvalidUTF8 counts the byte sequences of the files read that are not
	// valid UTF-8: JSON strings holding them are archived with U+FFFD in
	// their place (each file's first such line is warned about).
	InvalidUTF8 int   `json:"invalid_utf8,omitempty"`
	Bytes       int64 `json:"bytes"`      // bytes of transcript read
	BodyBytes   int64 `json:"body_bytes"` // bytes of entry bodies added
	// Commits counts the commits of git histories read.
	Commits int `json:"commits,omitempty"`
	// FileErrors has one line per path that yielded nothing to read: a
	// file that could not be read at all, and, for paths given in
	// Options.Paths, a path that does not exist or a directory holding no
	// file of the format ("DIR: no codex rollout files (...) found").
	FileErrors []string `json:"file_errors,omitempty"`
	// Unusable has one line per file read whole from which nothing could
	// be taken because every line or record of it was malformed or of a
	// type its format does not know: most likely a file of another format
	// ("FILE: no valid codex record (...); is it a codex file?", or with
	// Auto "FILE: format not recognised: auto tried mini-swe-agent, ...").
	// Such a file is also counted in Files; no progress is kept for it, so
	// every run reads and reports it again.
	Unusable []string `json:"unusable,omitempty"`
}

// SkippedTotal is the number of malformed lines skipped.
func (r *Report) SkippedTotal() int { return total(r.Skipped) }

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func (r *Report) count(m *map[string]int, key string, n int) {
	if *m == nil {
		*m = make(map[string]int)
	}
	(*m)[key] += n
}

// FileState is the progress kept per file under StateKey(path).
type FileState struct {
	V       int    `json:"v"`
	Format  Format `json:"format"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"` // unix nanoseconds
	Head    string `json:"head"`  // hex sha256 of the first HeadLen bytes
	// HeadLen is at most 4 KiB and never past Resume, so a line still
	// being written at the time does not count as a rewrite.
	HeadLen int `json:"head_len"`
	// Resume is the byte offset to continue a line format from (0: read
	// whole); Line is the 1-based number of the line starting there.
	Resume int64 `json:"resume,omitempty"`
	Line   int   `json:"line,omitempty"`
	// Tools is the number of tool calls numbered before Resume.
	Tools   int    `json:"tools,omitempty"`
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// SessionTools is Tools per session, for files holding several (jsonl).
	SessionTools map[string]int `json:"session_tools,omitempty"`
}

const (
	stateVersion = 1
	headLen      = 4096
)

// StateKey is the sink state key holding a file's progress.
func StateKey(path string) string { return "ingest/file/" + path }

// target is one file (or OpenCode store) to read with one format.
type target struct {
	path   string
	format Format
	size   int64
	mtime  time.Time
}

// Check reports what makes opts unusable before anything is read: no
// format or one memex does not read, a limit (Since, Max) on a format
// other than git, a negative Max, no path for a format that has no
// default location. The error is of class memex.ErrInvalid, its sentence
// in the words of the options memex ingest and POST /v1/ingest share
// (since, max, a path): it is the one place these rules live, which Run
// and every caller that checks a request before doing any work ask.
func (o Options) Check() error {
	if o.Format == "" {
		return fmt.Errorf("ingest: %w", memex.Errorf(memex.ErrInvalid, "no format (want one of %s)", FormatList(Formats)))
	}
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return err
	}
	if (!o.Since.IsZero() || o.Max != 0) && o.Format != Git {
		return fmt.Errorf("ingest: %w", memex.Errorf(memex.ErrInvalid, "since and max limit ingest git only, not %s", o.Format))
	}
	if o.Max < 0 {
		return fmt.Errorf("ingest: %w", memex.Errorf(memex.ErrInvalid, "max %d: want 0 (no limit) or a positive number of commits", o.Max))
	}
	if len(o.Paths) == 0 && o.Format == GitHub {
		return fmt.Errorf("ingest: %w", memex.Errorf(memex.ErrInvalid, "github: give the exported JSON files (gh issue list --json ... > issues.json)"))
	}
	if len(o.Paths) == 0 && o.Format != Git && len(DefaultPaths(o.Format, o.Home)) == 0 {
		return fmt.Errorf("ingest: %w", memex.Errorf(memex.ErrInvalid, "format %s has no default location: give a path", o.Format))
	}
	return nil
}

// Run ingests opts.Paths (or the format's default locations) into sink and
// reports what it did. Problems with single lines or files are counted and
// reported through opts.Warn, never fatal; Run fails only for invalid
// options, a failing sink, or ctx being cancelled (it then returns the
// report so far with ctx's error).
func Run(ctx context.Context, sink Sink, opts Options) (Report, error) {
	var rep Report
	if err := opts.Check(); err != nil {
		return rep, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SettleAfter == 0 {
		opts.SettleAfter = time.Hour
	}
	if opts.Format == Git || opts.Format == GitHub {
		r := &runner{sink: sink, opts: &opts, rep: &rep, projects: map[string]string{}, sessions: map[memex.SessionRef]bool{}}
		run := runGit
		if opts.Format == GitHub {
			run = runGitHub
		}
		err := run(ctx, r)
		rep.Sessions = len(r.sessions)
		return rep, err
	}
	paths, named := opts.Paths, len(opts.Paths) > 0
	if !named {
		paths = DefaultPaths(opts.Format, opts.Home)
	}
	targets, errs := discover(opts.Format, paths, named)
	for _, e := range errs {
		rep.FileErrors = append(rep.FileErrors, e)
		opts.warn(e)
	}
	prog := Progress{TotalFiles: len(targets)}
	for _, t := range targets {
		prog.TotalBytes += t.size
	}
	if opts.Progress != nil {
		opts.Progress(prog)
	}
	r := &runner{sink: sink, opts: &opts, rep: &rep, projects: map[string]string{}, sessions: map[memex.SessionRef]bool{}}
	readers := startReaders(ctx, r, targets)
	defer readers.stop()
	for i, t := range targets {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("ingest: %w", err)
		}
		err := r.write(ctx, readers.next(i))
		readers.done(i)
		if err != nil {
			if errors.Is(err, errSink) || ctx.Err() != nil {
				return rep, err
			}
			msg := fmt.Sprintf("%s: %v", t.path, err)
			rep.FileErrors = append(rep.FileErrors, msg)
			opts.warn(msg)
		}
		prog.Files++
		prog.Bytes += t.size
		prog.File = t.path
		if opts.Progress != nil {
			opts.Progress(prog)
		}
	}
	rep.Sessions = len(r.sessions)
	return rep, nil
}

func (o *Options) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// IDs encode milliseconds since 1970 in 48 bits; times outside are bogus.
var (
	minCreated = time.Unix(0, 0)
	maxCreated = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// errSink marks sink failures, which stop Run.
var errSink = errors.New("sink failed")

// runner is one Run. Its readers (read.go) parse files ahead on goroutines
// of their own; everything else, the writes to the sink and the report,
// belongs to the goroutine of Run.
type runner struct {
	sink      Sink
	opts      *Options
	rep       *Report
	projectMu sync.Mutex
	projects  map[string]string // cwd -> project
	sessions  map[memex.SessionRef]bool
}

// source is what a parser reads: the file's bytes from the resume point,
// with the state valid there. Parsers set the fields under "out".
type source struct {
	path   string
	format Format
	data   []byte // file content from base on (decompressed for .zst)
	base   int64  // offset of data[0] in the file
	line   int    // line number of data[0]
	mtime  time.Time
	st     FileState // state at base (Tools, Session, Project, Cwd)
	opts   *Options
	rep    *Report
	proj   func(cwd string) string

	// out
	resume     int64 // file offset to resume from next time (0: whole)
	resumeLine int
	resumeTool int
	records    []Record
	seq        []int // emission order, for a stable sort
	// notFormat says why the whole file is not of format, when Auto
	// chose the format and the file's one document does not decode as
	// it (see badDocument).
	notFormat string
}

func (s *source) warnf(line int, format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	if line > 0 {
		s.opts.warn(fmt.Sprintf("%s:%d: %s", s.path, line, reason))
	} else {
		s.opts.warn(fmt.Sprintf("%s: %s", s.path, reason))
	}
}

// skip counts a malformed line under reason and warns "reason: detail".
// A JSON decoding error is worded in JSON's terms (the field, what it
// holds, what was expected), not in the parser's Go types.
func (s *source) skip(line int, reason string, detail error) {
	s.rep.count(&s.rep.Skipped, reason, 1)
	if detail != nil {
		s.warnf(line, "%s: %s", reason, jsonerr.Describe(detail))
	} else {
		s.warnf(line, "%s", reason)
	}
}

// skipf counts a malformed line under reason and warns with its own
// words, for a reason whose detail says it better than its name.
func (s *source) skipf(line int, reason, format string, args ...any) {
	s.rep.count(&s.rep.Skipped, reason, 1)
	s.warnf(line, format, args...)
}

// badDocument counts a file whose one JSON document is not of s.format
// (it does not decode as one, or lacks what every such file has). With a
// format the caller named it is a skipped record like any other. When
// Auto chose the format from the file's name and first bytes, the file is
// more likely of a format memex does not read than a broken one: nothing
// is warned here, and the Unusable line that follows says that the format
// was not recognised, with this detail.
func (s *source) badDocument(reason string, detail error) {
	if s.opts.Format != Auto {
		s.skip(docLine(s.data, detail), reason, detail)
		return
	}
	s.rep.count(&s.rep.Skipped, reason, 1)
	s.notFormat = reason
	if detail != nil {
		s.notFormat = jsonerr.Describe(detail)
	}
}

// readWithout reports whether err, the error of decoding a whole document
// (a trajectory, a Gemini session), is only a value of another type than
// expected. encoding/json then decodes all the rest (jsondec.Unmarshal
// hands it such a document), so the document is read without that value,
// which is warned, with its line, and counted, instead of losing every
// entry of the file to one field (an extra.response.created written as a
// string).
//
// With Auto, which chose the format from the file's name and first bytes,
// such an error rather says the file is of another format: it is not
// read (badDocument).
func (s *source) readWithout(err error) bool { return s.lineWithout(-1, err) }

// lineWithout is readWithout for one line of a transcript (line, 1-based;
// -1 for a whole document, whose line is where err points). The lines of
// Claude Code and Codex keep their content as raw JSON, so what a value of
// another type costs them is a field of the envelope (a version, a
// timestamp), not the tool output the line carries.
func (s *source) lineWithout(line int, err error) bool {
	var te *json.UnmarshalTypeError
	if s.opts.Format == Auto || !errors.As(err, &te) {
		return false
	}
	if line < 0 {
		line = docLine(s.data, err)
	}
	s.rep.count(&s.rep.Skipped, "value of another type", 1)
	s.warnf(line, "%s: left out (and any later value of another type); the rest is read", jsonerr.Describe(err))
	return true
}

// docLine is the 1-based line of a JSON document data at which err, the
// error of decoding it, points (a trajectory is pretty-printed: its line is
// what an editor goes to, its byte offset is not); 0 when err names no
// place.
func docLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &se):
		off = se.Offset // bytes read, the one at fault included
	case errors.As(err, &te):
		off = te.Offset // the end of the value of the wrong type
	default:
		return 0
	}
	off = min(max(off-1, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func (s *source) unknown(typ string) { s.rep.count(&s.rep.Unknown, string(s.format)+":"+typ, 1) }
func (s *source) ignore(typ string)  { s.rep.count(&s.rep.Ignored, string(s.format)+":"+typ, 1) }

func (s *source) emit(r Record) {
	s.records = append(s.records, r)
}

// project returns the project for a session working in cwd.
func (s *source) project(cwd string) string {
	if s.opts.Project != "" {
		return s.opts.Project
	}
	if s.st.Project != "" && (cwd == "" || cwd == s.st.Cwd) {
		return s.st.Project
	}
	if cwd == "" {
		return ""
	}
	return s.proj(cwd)
}

func (r *runner) project(cwd string) string {
	r.projectMu.Lock()
	defer r.projectMu.Unlock()
	if p, ok := r.projects[cwd]; ok {
		return p
	}
	// A cwd that is not absolute (a transcript written on another
	// system, or made anonymous) names no directory here: looked up on
	// disk it would be resolved against memex's own working directory.
	p := filepath.Clean(cwd)
	if filepath.IsAbs(cwd) {
		p = DetectProject(cwd)
	}
	r.projects[cwd] = p
	return p
}

type parseFunc func(ctx context.Context, s *source) error

func parserFor(f Format) parseFunc {
	switch f {
	case ClaudeCode:
		return parseClaude
	case Codex:
		return parseCodex
	case MiniSWEAgent:
		return parseMiniSWE
	case SWEAgent:
		return parseSWE
	case JSONL:
		return parseJSONL
	case OpenCode:
		return parseOpenCode
	case Gemini:
		return parseGemini
	}
	return nil
}

// lineFormat reports whether progress can resume a format mid-file.
func lineFormat(f Format, path string) bool {
	return (f == ClaudeCode || f == Codex || f == JSONL) && !strings.HasSuffix(path, ".zst")
}

// unusable is the Report.Unusable line of t; sniffed says Auto chose its
// format, notFormat why its document is not of that format (see
// badDocument).
func unusable(t target, skipped, unknown int, sniffed bool, notFormat string) string {
	var why []string
	if skipped > 0 {
		why = append(why, fmt.Sprintf("%d skipped", skipped))
	}
	if unknown > 0 {
		why = append(why, fmt.Sprintf("%d of unknown types", unknown))
	}
	counts := strings.Join(why, ", ")
	if sniffed {
		msg := fmt.Sprintf("%s: format not recognised: auto tried %s, and ", t.path, t.format)
		if notFormat != "" {
			return msg + "it does not read as one: " + notFormat
		}
		return msg + "no record of it read as one (" + counts + ")"
	}
	return fmt.Sprintf("%s: no valid %s record (%s); is it a %s file?", t.path, t.format, counts, t.format)
}

// otherContent reports whether the entry id that a record's Key found
// holds other content than body, the record's after the policy (as it
// would be stored):
// not the same record read again but another run of the same session (a
// second model's trajectories of the same tasks imported into the same
// project), which the Key does not tell apart.
func (r *runner) otherContent(ctx context.Context, id memex.ID, body []byte) bool {
	s, ok := r.sink.(interface {
		Get(ctx context.Context, id memex.ID) (memex.Entry, error)
	})
	if !ok {
		return false
	}
	old, err := s.Get(ctx, id)
	if err != nil || old.Hash == "" || old.Attrs["source"] == "hook" {
		// A hook's capture of the same call renders what the host handed
		// the hook (Claude Code's structured tool response: a Read's file
		// content, not the numbered lines of the transcript): the same
		// call, not another run of it.
		return false
	}
	sum := sha256.Sum256(body)
	return old.Hash != "sha256:"+hex.EncodeToString(sum[:])
}

// completeHooked takes out, for the import to add again under its ID, the
// entry id when a Codex hook archived it: Codex hands its PostToolUse hook
// a shell call's raw output under the name "Bash", without the exit status
// and the lines around the output that the model saw and the rollout
// records (and a hook cannot know the call's SESSION#N). So the entry a
// hook archived first is completed from the rollout, keeping its ID (and
// time) for whatever cites it: hook-then-import stores what import alone
// stores. OpenCode's plugin likewise knows neither the part the call is
// stored as nor the call's place in the session. A Claude Code hook's entry already agrees with its transcript on
// key, input and exit status (internal/hosts' agreement test) and is left
// as it is, as is any entry when the sink cannot get and delete.
//
// The delete and the add are two writes: a crash between them leaves the
// call out of the archive until the next import adds it again, from the
// same transcript, under a new ID.
func (r *runner) completeHooked(ctx context.Context, id memex.ID) (memex.Entry, bool, error) {
	s, ok := r.sink.(interface {
		Get(ctx context.Context, id memex.ID) (memex.Entry, error)
		Delete(ctx context.Context, id memex.ID) error
	})
	if !ok {
		return memex.Entry{}, false, nil
	}
	old, err := s.Get(ctx, id)
	if err != nil || old.Attrs["source"] != "hook" || (old.Agent != agentCodex && old.Agent != agentOpenCode) {
		return memex.Entry{}, false, nil
	}
	if err := s.Delete(ctx, id); err != nil && !errors.Is(err, memex.ErrNotFound) {
		return memex.Entry{}, false, err
	}
	return old, true, nil
}

func dedupAliases(in []string) []string {
	out := in[:0]
	for _, a := range in {
		a = strings.TrimSpace(a)
		if memex.CheckAlias(a) != nil || slices.Contains(out, a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

func headHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// shortHash is a record identity for lines with no id of their own.
func shortHash(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:10])
}

// toolAlias is the SESSION#N alias of the n-th tool call of a session.
func toolAlias(session string, n int) string { return session + "#" + strconv.Itoa(n) }

// sessionFromPath is a file's name without its directory and extensions
// (.jsonl, .jsonl.zst, .traj.json, .traj, .json).
func sessionFromPath(p string) string {
	base := filepath.Base(p)
	for _, ext := range []string{".jsonl.zst", ".traj.json", ".jsonl", ".traj", ".json", ".zst"} {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	return base
}

func statTarget(p string, f Format) (target, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return target{}, err
	}
	if !fi.Mode().IsRegular() && !(f == OpenCode && fi.IsDir()) {
		return target{}, errNotRegular
	}
	return target{path: p, format: f, size: fi.Size(), mtime: fi.ModTime()}, nil
}

// String renders the report for a terminal: one line of totals, then one
// line per non-empty breakdown, keys sorted.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d files (%d unchanged), %d sessions, %d entries added, %d already present, %d bytes read, %d secrets redacted",
		r.Files, r.Unchanged, r.Sessions, r.Added, r.Present, r.Bytes, r.Redacted)
	if r.InvalidUTF8 > 0 {
		fmt.Fprintf(&b, ", %d invalid UTF-8 sequences replaced", r.InvalidUTF8)
	}
	for _, part := range []struct {
		name string
		m    map[string]int
	}{{"skipped", r.Skipped}, {"unknown", r.Unknown}, {"redacted", r.RedactedKinds}} {
		if len(part.m) == 0 {
			continue
		}
		keys := make([]string, 0, len(part.m))
		for k := range part.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\n" + part.name + ":")
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%d", k, part.m[k])
		}
	}
	for _, e := range r.FileErrors {
		b.WriteString("\nerror: " + e)
	}
	for _, e := range r.Unusable {
		b.WriteString("\nunusable: " + e)
	}
	return b.String()
}
