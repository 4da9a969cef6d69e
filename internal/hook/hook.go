// Package hook runs an agent host's hook event: it archives the tool call
// a PostToolUse carries, imports the transcript a PreCompact, Stop or
// Codex notify names, and injects context at SessionStart (the session's
// IndexedSummary after a compaction, the project's handoff capsule on a
// new session). What the host sends and reads is package hosts'; what is
// archived and read goes through the running server's Client or the
// Service over the home, one path either way.
//
// Hooks run inside the agent's loop: they must be fast, must never fail or
// block the agent, and print nothing on stdout but what the host reads.
// Run reports every problem on stderr and returns; the hook exits 0. A
// PostToolUse that cannot take the store at once (a long ingest holds it)
// is written to the home's spool, through the write policy first, and
// archived by the next hook or server that holds the store.
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/spool"
)

const (
	// StopWait is how long a hook that imports a transcript at the end of
	// a turn waits for the store before spooling the import.
	StopWait = 300 * time.Millisecond
	// addWait is how long a PostToolUse waits for the store: not at all.
	// When another process holds it the call is spooled (a synced file:
	// as durable as an add) and archived by the next process that takes
	// the store, so that concurrent hooks never queue behind the lock one
	// at a time (docs/performance.md, Hooks).
	addWait = -1
	// readWait is how long SessionStart waits for the store.
	readWait = 2 * time.Second
	// ContextBudget is the token budget of an injected IndexedSummary; a
	// summary line runs about four characters a token, and the text is
	// cut to the host's cap (hosts.ContextChars) whatever the ratio.
	ContextBudget = 2200
)

// Options configure Run. Home, Stdout and Stderr are required.
type Options struct {
	// Home is the memex home ($MEMEX_HOME).
	Home           string
	Stdout, Stderr io.Writer
	// Logger gets details; nil discards them.
	Logger *slog.Logger
	// Server returns the running server's Client, nil when none runs;
	// nil is the one Home names (service.Running).
	Server func(ctx context.Context) *api.Client
	// Service configures the Service over the home when no server runs.
	Service service.Options
	// CompactWait is how long an import before a compaction waits for the
	// store (it must not be lost to the compaction); 0 is home.DefaultWait.
	CompactWait time.Duration
	// NoHandoff turns the capsule of a new session off (MEMEX_HANDOFF);
	// NoLessons the lesson line after a failed call (MEMEX_LESSONS).
	NoHandoff, NoLessons bool
	// Message words an error for a line of stderr and memex doctor's
	// note; nil is err.Error().
	Message func(error) string
}

type runner struct {
	Options
}

// Run handles event of host, with the host's JSON read from in.
func Run(ctx context.Context, o Options, host, event string, in io.Reader) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Service.Logger == nil {
		o.Service.Logger = o.Logger
	}
	if o.Message == nil {
		o.Message = func(err error) string { return err.Error() }
	}
	if o.Server == nil {
		o.Server = func(ctx context.Context) *api.Client {
			_, c, _ := service.Running(ctx, o.Home)
			return c
		}
	}
	r := runner{o}
	if !hosts.HasHooks(host) {
		fmt.Fprintf(r.Stderr, "memex hook: unknown host %q (want %s)\n", host, strings.Join(hosts.HookHosts, " or "))
		return
	}
	if event == spool.DrainEvent {
		// The drain memex-hook starts and leaves: no input to read, and
		// nobody reads its stderr. Its problems, a full disk among them,
		// go to memex doctor's note as the capture's.
		err := r.drainStore(ctx)
		if errors.Is(err, memex.ErrDiskFull) {
			r.spooledUntilRoom(err)
		} else if err != nil {
			fmt.Fprintf(r.Stderr, "memex hook %s: %s\n", event, r.Message(err))
		}
		if err != nil {
			r.record(host, "PostToolUse", hosts.HookInput{}, err)
		}
		return
	}
	hi, err := hosts.ReadHook(in)
	if err != nil {
		fmt.Fprintf(r.Stderr, "memex hook: %v\n", err)
		return
	}
	hi = hosts.Normalize(host, hi)
	if hi.Event != "" {
		event = hi.Event
	}
	if hi.InvalidUTF8 > 0 {
		fmt.Fprintf(r.Stderr, "memex hook: the host's JSON holds %d byte sequence(s) that are not valid UTF-8; they are archived as U+FFFD (attrs.invalid_utf8 counts them)\n", hi.InvalidUTF8)
	}
	if strings.EqualFold(event, "notify") {
		err := r.codexNotify(ctx, hi.Raw)
		if err != nil {
			fmt.Fprintf(r.Stderr, "memex hook notify: %s\n", r.Message(err))
		}
		r.record(host, "notify", hi, err)
		return
	}
	switch hosts.Event(event) {
	case "PostToolUse", "PostToolUseFailure":
		err = r.postToolUse(ctx, host, hi)
	case "PreCompact", "PreCompress":
		err = r.ingest(ctx, hosts.TranscriptFormat(host), hi, r.CompactWait)
	case "Stop", "SubagentStop", "SessionEnd", "AfterAgent":
		err = r.ingest(ctx, hosts.TranscriptFormat(host), hi, StopWait)
	case "SessionStart":
		err = r.sessionStart(ctx, hi)
	default:
		return // events memex does not use
	}
	if err != nil {
		fmt.Fprintf(r.Stderr, "memex hook %s: %s\n", event, r.Message(err))
	}
	r.record(host, hosts.Event(event), hi, err)
}

// record leaves the note memex doctor reads: which hook ran last, when,
// and how it ended.
func (r runner) record(host, event string, in hosts.HookInput, err error) {
	run := hosts.HookRun{Host: host, Event: event, Session: in.SessionID, At: time.Now().UTC()}
	if err != nil {
		run.Error = r.Message(err)
	}
	hosts.RecordHook(r.Home, run)
}

func (r runner) postToolUse(ctx context.Context, host string, in hosts.HookInput) error {
	e, body := hosts.ToolEntry(host, in)
	mayHint := !r.NoLessons && e.Exit != nil && *e.Exit != 0
	if !mayHint {
		// No lesson to ask the store for: spool the call and let the last
		// hook in flight archive the spool (spoolCapture).
		if spooled, err := r.spoolCapture(ctx, e, body); spooled {
			return err
		}
	}
	var hint string
	served, err := r.with(ctx, addWait, func(t target, _ *home.Home) error {
		stored, err := service.Capture(ctx, t, e, body)
		if err == nil && mayHint {
			hint = lessonHint(ctx, t, e, stored)
		}
		return err
	})
	if spoolable(err, served) {
		// The spool holds no credentials either: the write policy the
		// Service applies, applied before the item reaches the disk.
		e, body, _ = service.Policy(e, body)
		return r.spool(spool.Item{Entry: &e, Content: body}, err)
	}
	if err == nil && hint != "" {
		return hosts.LessonOutput(r.Stdout, hint)
	}
	return err
}

// spoolCapture spools a captured call when no server runs, which
// acknowledges it, and when no other hook is in flight (home.Enter)
// archives the whole spool in one open of the store, unsynced until one
// sync at the end: a writable open replays and flushes Pebble's log, and
// a hundred hooks at once each paying for it was the cost of concurrent
// hooks (docs/performance.md, Hooks). A store that is taken leaves the
// spool to its holder or the next process that takes it. spooled is false
// when a server runs or the call could not be spooled: the caller
// archives it then.
func (r runner) spoolCapture(ctx context.Context, e memex.Entry, body []byte) (spooled bool, err error) {
	if _, ok := home.ReadServer(r.Home); ok {
		return false, nil
	}
	// The spool holds no credentials: the Service's write policy, applied
	// before the item reaches the disk.
	e, body, _ = service.Policy(e, body)
	last, err := spool.Hook(r.Home, spool.Item{Entry: &e, Content: body})
	if err != nil {
		r.Logger.Warn("spool", "err", err)
		return false, nil
	}
	if !last {
		return true, nil
	}
	return true, r.drain(ctx)
}

// drainRounds bounds the rounds of a drain: hooks that keep spooling
// cannot keep it open for ever.
const drainRounds = 8

// drain archives the home's spool in one open of the store, unsynced
// until one sync at the end, unless the store is taken: then the spool
// waits, durable, for its holder or the next process that takes it.
// memex-hook hands it here (spool.DrainEvent) when it was the last hook in
// flight.
func (r runner) drain(ctx context.Context) error {
	err := r.drainStore(ctx)
	if errors.Is(err, memex.ErrDiskFull) {
		r.spooledUntilRoom(err)
		return nil
	}
	return err
}

// drainStore is drain without its word on a full disk: a store taken is
// no error, a full disk is (memex.ErrDiskFull).
func (r runner) drainStore(ctx context.Context) error {
	h, err := home.Open(ctx, r.Home, home.Options{Wait: addWait, NoSync: true, Logger: r.Logger, Purpose: "memex hook"})
	if err == nil {
		// Hooks keep spooling while the drain runs (a burst), and one
		// that finds the store taken leaves its item to the holder: what
		// they spooled meanwhile is archived too, in a few more rounds.
		for round := 0; err == nil && round < drainRounds && (round == 0 || spool.Pending(r.Home)); round++ {
			err = service.DrainSpool(ctx, h, r.Service)
		}
		if cerr := h.Close(); err == nil {
			err = cerr
		}
	}
	if errors.Is(err, memex.ErrBusy) {
		return nil
	}
	return err
}

// lessonHint is the lesson line for the failed tool call e, archived as
// stored (or before, under its key); "" for none.
func lessonHint(ctx context.Context, m api.Memory, e, stored memex.Entry) string {
	ref := hosts.Key(e)
	if !stored.ID.IsZero() {
		ref = stored.ID.String()
	}
	if ref == "" {
		return ""
	}
	text, err := m.Hint(ctx, api.HintRequest{Ref: ref, Project: e.Project})
	if err != nil {
		return ""
	}
	return text
}

// target is what a hook archives and reads through.
type target interface {
	api.Service
	api.Memory
}

// local is the Service and Memory over a home this process holds.
type local struct {
	api.Service
	service.Memory
}

// with runs fn on the running server's Client (h nil), else on the
// Service over the home, opened for writing within wait (memex.ErrBusy
// after) and its spool archived first. It reports whether fn ran through
// a server.
func (r runner) with(ctx context.Context, wait time.Duration, fn func(t target, h *home.Home) error) (served bool, err error) {
	if c := r.Server(ctx); c != nil {
		return true, fn(c, nil)
	}
	h, err := service.OpenHome(ctx, r.Home, home.Options{Wait: wait, Logger: r.Logger, Purpose: "memex hook"}, r.Service)
	if err != nil {
		return false, err
	}
	err = fn(local{service.New(h, r.Service), service.NewMemory(h, r.Service)}, h)
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	return false, err
}

// reader is what a hook reads through: the running server, or the store
// opened for each call, read-only, waiting for it readWait at most.
func (r runner) reader(ctx context.Context) target {
	if c := r.Server(ctx); c != nil {
		return c
	}
	return service.Locked{Open: func(ctx context.Context, write bool) (*home.Home, error) {
		return home.Open(ctx, r.Home, home.Options{Shared: !write, Wait: readWait, Logger: r.Logger, Purpose: "memex hook"})
	}, Options: r.Service}
}

// spoolable reports whether a hook's work that failed with err is
// spooled: the store was busy or its disk full, or the server went away
// before it answered.
func spoolable(err error, served bool) bool {
	return err != nil && (errors.Is(err, memex.ErrBusy) || errors.Is(err, memex.ErrDiskFull) || served && !api.Answered(err))
}

// spool spools item, which the store refused with cause (busy, or its
// disk full). A full disk is said in a line, spooled or not: what cannot
// be spooled either (the spool at its bound, or no room even for it) is
// dropped, and the line says that.
func (r runner) spool(item spool.Item, cause error) error {
	p, err := spool.Write(r.Home, item)
	if err == nil {
		r.Logger.Debug("spooled", "file", p)
	}
	if !errors.Is(cause, memex.ErrDiskFull) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%s; not spooled either (%s): dropped", r.Message(cause), r.Message(err))
	}
	r.spooledUntilRoom(cause)
	return nil
}

// spooledUntilRoom says that the store's disk is full (err) and the work
// waits in the spool.
func (r runner) spooledUntilRoom(err error) {
	fmt.Fprintf(r.Stderr, "memex hook: %s; spooled in %s until there is room\n", r.Message(err), filepath.Join(r.Home, home.SpoolDir))
}

// ingest imports the session's transcript; when the store stays busy
// past wait, the import is spooled.
func (r runner) ingest(ctx context.Context, format ingest.Format, in hosts.HookInput, wait time.Duration) error {
	if in.TranscriptPath == "" {
		return nil
	}
	// The session's subagents too: the hook names only its transcript.
	paths := ingest.SessionPaths(format, in.TranscriptPath)
	served, err := r.with(ctx, wait, func(t target, h *home.Home) error {
		var unread []string
		if h == nil {
			res, err := t.Ingest(ctx, api.IngestRequest{Format: string(format), Paths: paths})
			if err != nil {
				return err
			}
			unread = res.FileErrors
		} else {
			// Not through the Service's import: a hook does not open the
			// index (the next search catches it up).
			rep, err := service.IngestDistilled(ctx, h.Store, ingest.Options{Format: format, Paths: paths})
			if err != nil {
				return err
			}
			unread = rep.FileErrors
		}
		if len(unread) > 0 {
			// The transcript could not be read (missing, a device or a
			// FIFO): say so, for the log and memex doctor.
			return errors.New(unread[0])
		}
		return nil
	})
	if spoolable(err, served) {
		return r.spool(spool.Item{Ingest: in.TranscriptPath, Format: string(format)}, err)
	}
	return err
}

// sessionStart injects context: after a compaction, this session's
// IndexedSummary; otherwise the project's handoff capsule.
func (r runner) sessionStart(ctx context.Context, in hosts.HookInput) error {
	if in.Source != "compact" {
		return r.handoff(ctx, in)
	}
	if in.SessionID == "" {
		return nil
	}
	res, err := r.reader(ctx).Context(ctx, api.ContextRequest{Budget: ContextBudget, Session: in.SessionID})
	if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrBusy) {
		return nil // nothing archived yet, or the store is busy: inject nothing
	}
	if err != nil || strings.TrimSpace(res.Text) == "" {
		return err
	}
	intro := "memex archived this session's tool outputs before the compaction. Each line below is one entry: its ID, what ran and how it ended. Read any entry's exact output with the memex_read tool (ids: [ID], budget in tokens) or `memex show ID`; search with memex_search.\n"
	return hosts.ContextOutput(r.Stdout, intro, res.Text)
}

// handoff injects the handoff capsule of the session's project at the
// start of a session (startup, resume, clear), when an earlier session of
// the project left something, with the evidence checked against the
// session's checkout (not a server's).
func (r runner) handoff(ctx context.Context, in hosts.HookInput) error {
	if r.NoHandoff {
		return nil
	}
	project := ingest.DetectProject(in.Cwd)
	if project == "" {
		return nil
	}
	c, err := r.reader(ctx).Handoff(ctx, api.HandoffRequest{Project: project, Exclude: in.SessionID, Checkout: in.Cwd})
	if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrBusy) {
		return nil // nothing archived yet, or the store is busy: inject nothing
	}
	if err != nil || c.Sessions == 0 {
		return err // no earlier session: commits alone are no handoff
	}
	intro := "memex: what earlier sessions (any agent) left for this project. Read the evidence of any line by its ID with the memex_read tool (ids: [ID]) or `memex show ID`; search with memex_search.\n"
	return hosts.ContextOutput(r.Stdout, intro, c.Text)
}

// codexNotify imports the rollout of the thread a Codex notify names.
func (r runner) codexNotify(ctx context.Context, raw []byte) error {
	path, err := hosts.CodexNotifyRollout(raw)
	if err != nil || path == "" {
		return err
	}
	return r.ingest(ctx, ingest.Codex, hosts.HookInput{TranscriptPath: path}, StopWait)
}
