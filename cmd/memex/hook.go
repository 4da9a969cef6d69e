package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

// Hooks run inside the agent's loop: they must be fast, must never fail or
// block the agent, and print nothing on stdout but what the host reads
// (SessionStart's additional context). Every error is logged to stderr and
// the hook exits 0. A PostToolUse that cannot take the store at once (a
// long ingest holds it) is written to $MEMEX_HOME/spool and archived by the
// next hook or server that holds the store.

const (
	// hookLockWait is how long a hook that imports a transcript waits for
	// the store before spooling the import.
	hookLockWait = 300 * time.Millisecond
	// hookAddWait is how long a PostToolUse waits for the store: not at
	// all. When another process holds it the call is spooled (a synced
	// file: as durable as an add) and archived by the next process that
	// takes the store, so that concurrent hooks never queue behind the
	// lock one at a time (docs/performance.md, Hooks).
	hookAddWait = -1
	// contextBudget is the token budget of an injected IndexedSummary; a
	// summary line runs about four characters a token, and the text is
	// cut to the host's cap (hosts.ContextChars) whatever the ratio.
	contextBudget = 2200
)

func (a *app) hookCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude-code|codex|gemini|opencode EVENT [JSON]",
		Short: "Handle an agent host's hook event (reads the host's JSON on stdin)",
		Long: `Run as the host's hook command (memex install writes the configuration):

  PostToolUse             archive the tool call and its full response at once
  PostToolUseFailure      the same for a call that failed (Claude Code)
  PreCompact, PreCompress import the transcript so far
  SessionStart            after compact: inject this session's IndexedSummary;
                          on startup/resume/clear: inject the project's recent memory
  Stop, SubagentStop,
  AfterAgent, SessionEnd  import the transcript (quickly; spooled when the store is busy)

OpenCode runs them from the plugin memex install opencode writes.
Codex's notify program is "memex hook codex notify": it passes its JSON as an argument
(agent-turn-complete with the thread id) and memex imports that thread's rollout.

A hook always exits 0 and prints nothing on stdout but the context it injects;
problems go to stderr.`,
		Example: `  echo '{"session_id":"s","hook_event_name":"PostToolUse",...}' | memex hook claude-code PostToolUse`,
		Args:    rangeArgs(2, 3),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 3 {
				a.stdin = strings.NewReader(args[2])
			}
			a.runHook(c.Context(), args[0], args[1])
			return nil
		},
	}
}

func (a *app) runHook(ctx context.Context, host, event string) {
	if !hosts.HasHooks(host) {
		fmt.Fprintf(a.stderr, "memex hook: unknown host %q (want %s)\n", host, strings.Join(hosts.HookHosts, " or "))
		return
	}
	in, err := hosts.ReadHook(a.stdin)
	if err != nil {
		fmt.Fprintf(a.stderr, "memex hook: %v\n", err)
		return
	}
	in = hosts.Normalize(host, in)
	if in.Event != "" {
		event = in.Event
	}
	if in.InvalidUTF8 > 0 {
		fmt.Fprintf(a.stderr, "memex hook: the host's JSON holds %d byte sequence(s) that are not valid UTF-8; they are archived as U+FFFD (attrs.invalid_utf8 counts them)\n", in.InvalidUTF8)
	}
	if strings.EqualFold(event, "notify") {
		err := a.codexNotify(ctx, in.Raw)
		if err != nil {
			fmt.Fprintf(a.stderr, "memex hook notify: %s\n", userMessage(err))
		}
		a.recordHook(host, "notify", in, err)
		return
	}
	switch hosts.Event(event) {
	case "PostToolUse", "PostToolUseFailure":
		err = a.hookPostToolUse(ctx, host, in)
	case "PreCompact", "PreCompress":
		err = a.hookIngest(ctx, hosts.TranscriptFormat(host), in, lockTimeout())
	case "Stop", "SubagentStop", "SessionEnd", "AfterAgent":
		err = a.hookIngest(ctx, hosts.TranscriptFormat(host), in, hookLockWait)
	case "SessionStart":
		err = a.hookSessionStart(ctx, in)
	default:
		return // events memex does not use
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "memex hook %s: %s\n", event, userMessage(err))
	}
	a.recordHook(host, hosts.Event(event), in, err)
}

// recordHook leaves the note memex doctor reads: which hook ran last,
// when, and how it ended.
func (a *app) recordHook(host, event string, in hosts.HookInput, err error) {
	r := hosts.HookRun{Host: host, Event: event, Session: in.SessionID, At: time.Now().UTC()}
	if err != nil {
		r.Error = userMessage(err)
	}
	hosts.RecordHook(a.home, r)
}

func (a *app) hookPostToolUse(ctx context.Context, host string, in hosts.HookInput) error {
	e, body := hosts.ToolEntry(host, in)
	ingest.RecordShown(&e, in.Cwd, body)
	if !mayHint(e) {
		// No lesson to ask the store for: spool the call and let the last
		// hook in flight archive the spool (spoolCapture).
		if spooled, err := a.spoolCapture(ctx, e, body); spooled {
			return err
		}
	}
	var hint string
	served, err := a.withHook(ctx, hookAddWait, func(t hookTarget, _ *home.Home) error {
		stored, err := service.Capture(ctx, t, e, body)
		if err == nil && mayHint(e) {
			hint = lessonHint(ctx, t, e, stored)
		}
		return err
	})
	if spoolable(err, served) {
		// The spool holds no credentials either: the write policy the
		// Service applies, applied before the item reaches the disk.
		e, body, _ = service.Policy(e, body)
		return a.spoolFor(spoolItem{Entry: &e, Content: body}, err)
	}
	if err == nil && hint != "" {
		return hosts.LessonOutput(a.stdout, hint)
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
func (a *app) spoolCapture(ctx context.Context, e memex.Entry, body []byte) (spooled bool, err error) {
	if _, ok := home.ReadServer(a.home); ok {
		return false, nil
	}
	fl, err := home.Enter(a.home)
	if err != nil {
		a.log.Warn("spool", "err", err)
		return false, nil
	}
	// The spool holds no credentials: the Service's write policy, applied
	// before the item reaches the disk.
	e, body, _ = service.Policy(e, body)
	if _, err := home.Spool(a.home, spoolItem{Entry: &e, Content: body}); err != nil {
		fl.Leave()
		a.log.Warn("spool", "err", err)
		return false, nil
	}
	if !fl.Leave() {
		return true, nil
	}
	h, err := home.Open(ctx, a.home, home.Options{Wait: hookAddWait, NoSync: true, Logger: a.log, Purpose: "memex hook"})
	if err == nil {
		err = a.drainSpool(ctx, h)
		if cerr := h.Close(); err == nil {
			err = cerr
		}
	}
	switch {
	case errors.Is(err, memex.ErrBusy):
		return true, nil
	case errors.Is(err, memex.ErrDiskFull):
		fmt.Fprintf(a.stderr, "memex hook: %s; spooled in %s until there is room\n", userMessage(err), filepath.Join(a.home, home.SpoolDir))
		return true, nil
	}
	return true, err
}

// lessonHint is the lesson line for the captured tool call e, archived as
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

// mayHint reports whether a captured tool call may earn a lesson line:
// it failed, and MEMEX_LESSONS does not turn the lines off (off, 0,
// false, no).
func mayHint(e memex.Entry) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("MEMEX_LESSONS"))) {
	case "off", "0", "false", "no":
		return false
	}
	return e.Exit != nil && *e.Exit != 0
}

// hookTarget is what a hook archives and reads through.
type hookTarget interface {
	api.Service
	api.Memory
}

// localTarget is the Service and Memory over a home this process holds.
type localTarget struct {
	api.Service
	service.Memory
}

// withHook runs fn on the running server's Client (h nil), else on the
// Service over the home, opened for writing within wait (memex.ErrBusy
// after) and its spool archived first. It reports whether fn ran through
// a server.
func (a *app) withHook(ctx context.Context, wait time.Duration, fn func(t hookTarget, h *home.Home) error) (served bool, err error) {
	if _, r, ok := a.runningServer(ctx); ok {
		return true, fn(r, nil)
	}
	h, err := home.Open(ctx, a.home, home.Options{Wait: wait, Logger: a.log, Purpose: "memex hook"})
	if err != nil {
		return false, err
	}
	if err := a.drainSpool(ctx, h); err != nil {
		a.log.Warn("spool", "err", err)
	}
	o := a.serviceOptions()
	err = fn(localTarget{service.New(h, o), service.NewMemory(h, o)}, h)
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	return false, err
}

// spoolable reports whether a hook's work that failed with err is
// spooled: the store was busy or its disk full, or the server went away
// before it answered.
func spoolable(err error, served bool) bool {
	return err != nil && (errors.Is(err, memex.ErrBusy) || errors.Is(err, memex.ErrDiskFull) || served && !api.Answered(err))
}

// spoolItem is one spooled hook: an entry to add, or a transcript to
// import (internal/home keeps the spool).
type spoolItem = home.SpoolItem

// spoolFor spools item, which the store refused with cause (busy, or its
// disk full). A full disk is said in a line, spooled or not: what cannot
// be spooled either (the spool at its bound, or no room even for it) is
// dropped, and the line says that.
func (a *app) spoolFor(item spoolItem, cause error) error {
	p, err := home.Spool(a.home, item)
	if err == nil {
		a.log.Debug("spooled", "file", p)
	}
	if !errors.Is(cause, memex.ErrDiskFull) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%s; not spooled either (%s): dropped", userMessage(cause), userMessage(err))
	}
	fmt.Fprintf(a.stderr, "memex hook: %s; spooled in %s until there is room\n", userMessage(cause), filepath.Join(a.home, home.SpoolDir))
	return nil
}

// drainSpool archives what hooks and runs spooled while the store was
// taken (service.DrainSpool).
func (a *app) drainSpool(ctx context.Context, h *home.Home) error {
	return service.DrainSpool(ctx, h, a.serviceOptions())
}

// hookIngest imports the session's transcript; when the store stays busy
// past wait, the import is spooled.
func (a *app) hookIngest(ctx context.Context, format ingest.Format, in hosts.HookInput, wait time.Duration) error {
	if in.TranscriptPath == "" {
		return nil
	}
	served, err := a.withHook(ctx, wait, func(t hookTarget, h *home.Home) error {
		var unread []string
		if h == nil {
			res, err := t.Ingest(ctx, api.IngestRequest{Format: string(format), Paths: []string{in.TranscriptPath}})
			if err != nil {
				return err
			}
			unread = res.FileErrors
		} else {
			// Not through the Service's import: a hook does not open the
			// index (the next search catches it up).
			rep, err := service.IngestDistilled(ctx, h.Store, ingest.Options{Format: format, Paths: []string{in.TranscriptPath}})
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
		return a.spoolFor(spoolItem{Ingest: in.TranscriptPath, Format: string(format)}, err)
	}
	return err
}

// hookSessionStart injects context: after a compaction, this session's
// IndexedSummary; otherwise the project's handoff capsule (hookHandoff).
func (a *app) hookSessionStart(ctx context.Context, in hosts.HookInput) error {
	if in.Source != "compact" {
		return a.hookHandoff(ctx, in)
	}
	if in.SessionID == "" {
		return nil
	}
	req := api.ContextRequest{Budget: contextBudget, Session: in.SessionID}
	intro := "memex archived this session's tool outputs before the compaction. Each line below is one entry: its ID, what ran and how it ended. Read any entry's exact output with the memex_read tool (ids: [ID], budget in tokens) or `memex show ID`; search with memex_search.\n"
	text, err := a.hookContext(ctx, req)
	if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrBusy) {
		return nil // nothing archived yet, or the store is busy: inject nothing
	}
	if err != nil || strings.TrimSpace(text) == "" {
		return err
	}
	return hosts.ContextOutput(a.stdout, intro, text)
}

// hookHandoff injects the handoff capsule of the session's project at the
// start of a session (startup, resume, clear), when an earlier session of
// the project left something; MEMEX_HANDOFF=off turns it off.
func (a *app) hookHandoff(ctx context.Context, in hosts.HookInput) error {
	if handoffOff() {
		return nil
	}
	project := ingest.DetectProject(in.Cwd)
	if project == "" {
		return nil
	}
	text, sessions, err := a.handoffText(ctx, project, in.SessionID, in.Cwd)
	if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrBusy) {
		return nil // nothing archived yet, or the store is busy: inject nothing
	}
	if err != nil || sessions == 0 {
		return err // no earlier session: commits alone are no handoff
	}
	intro := "memex: what earlier sessions (any agent) left for this project. Read the evidence of any line by its ID with the memex_read tool (ids: [ID]) or `memex show ID`; search with memex_search.\n"
	return hosts.ContextOutput(a.stdout, intro, text)
}

// handoffOff reports whether MEMEX_HANDOFF turns the start-of-session
// capsule off (off, 0, false, no).
func handoffOff() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("MEMEX_HANDOFF"))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

// handoffText builds the capsule of project, leaving out session, with
// the evidence checked against the checkout of cwd (the session's files,
// not a server's).
func (a *app) handoffText(ctx context.Context, project, session, cwd string) (string, int, error) {
	c, err := a.hookReader(ctx).Handoff(ctx, api.HandoffRequest{Project: project, Exclude: session, Checkout: cwd})
	return c.Text, c.Sessions, err
}

// hookContext builds an IndexedSummary.
func (a *app) hookContext(ctx context.Context, req api.ContextRequest) (string, error) {
	res, err := a.hookReader(ctx).Context(ctx, req)
	return res.Text, err
}

// hookReader is what a hook reads through: the running server, or the
// store opened for each call, read-only, waiting for it 2s at most.
func (a *app) hookReader(ctx context.Context) interface {
	api.Service
	api.Memory
} {
	if _, r, ok := a.runningServer(ctx); ok {
		return r
	}
	return a.lockedService(2 * time.Second)
}

// codexNotify imports the rollout of the thread a Codex notify names.
func (a *app) codexNotify(ctx context.Context, raw []byte) error {
	path, err := hosts.CodexNotifyRollout(raw)
	if err != nil || path == "" {
		return err
	}
	return a.hookIngest(ctx, ingest.Codex, hosts.HookInput{TranscriptPath: path}, hookLockWait)
}
