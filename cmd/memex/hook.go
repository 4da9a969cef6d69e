package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/redact"
	"github.com/spf13/cobra"
)

// Hooks run inside the agent's loop: they must be fast, must never fail or
// block the agent, and print nothing on stdout but what the host reads
// (SessionStart's additional context). Every error is logged to stderr and
// the hook exits 0. A PostToolUse that cannot take the store at once (a
// long ingest holds it) is written to $MEMEX_HOME/spool and archived by the
// next hook or server that holds the store.

const (
	// hookInputMax bounds what a hook reads from the host.
	hookInputMax = 256 << 20
	// hookLockWait is how long a capture hook waits for the store before
	// spooling.
	hookLockWait = 300 * time.Millisecond
	// contextChars is the host's cap on injected context (Claude Code
	// cuts additionalContext at 10,000 characters).
	contextChars = 10000
	// contextBudget is the token budget of an injected IndexedSummary; a
	// summary line runs about four characters a token, and the text is
	// cut to contextChars whatever the ratio.
	contextBudget = 2200
)

// hookInput is what Claude Code (and Codex, for the events it shares)
// writes on a hook's stdin.
type hookInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	Event          string          `json:"hook_event_name"`
	Source         string          `json:"source"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	AgentID        string          `json:"agent_id"`
}

func (a *app) hookCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude-code|codex EVENT [JSON]",
		Short: "Handle an agent host's hook event (reads the host's JSON on stdin)",
		Long: `Run as the host's hook command (memex install writes the configuration):

  PostToolUse             archive the tool call and its full response at once
  PreCompact              import the transcript so far
  SessionStart            after compact: inject this session's IndexedSummary;
                          on startup/resume/clear: inject the project's recent memory
  Stop, SubagentStop,
  SessionEnd              import the transcript (quickly; spooled when the store is busy)

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

// hookEvent normalises an event name: "session-start" and "sessionstart"
// are SessionStart.
func hookEvent(s string) string {
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	for _, e := range []string{"PostToolUse", "PreCompact", "SessionStart", "Stop", "SubagentStop", "SessionEnd"} {
		if strings.ToLower(e) == k {
			return e
		}
	}
	return s
}

func (a *app) runHook(ctx context.Context, host, event string) {
	agent := host
	if host != "claude-code" && host != "codex" {
		fmt.Fprintf(a.stderr, "memex hook: unknown host %q (want claude-code or codex)\n", host)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(a.stdin, hookInputMax))
	if err != nil {
		fmt.Fprintf(a.stderr, "memex hook: read input: %v\n", err)
		return
	}
	var in hookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		fmt.Fprintf(a.stderr, "memex hook: input is not the host's JSON: %v\n", err)
		return
	}
	if in.Event != "" {
		event = in.Event
	}
	if strings.EqualFold(event, "notify") {
		if err := a.codexNotify(ctx, raw); err != nil {
			fmt.Fprintf(a.stderr, "memex hook notify: %s\n", userMessage(err))
		}
		return
	}
	switch hookEvent(event) {
	case "PostToolUse":
		err = a.hookPostToolUse(ctx, agent, in)
	case "PreCompact":
		err = a.hookIngest(ctx, transcriptFormat(host), in, lockTimeout())
	case "Stop", "SubagentStop", "SessionEnd":
		err = a.hookIngest(ctx, transcriptFormat(host), in, hookLockWait)
	case "SessionStart":
		err = a.hookSessionStart(ctx, in)
	default:
		return // events memex does not use
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "memex hook %s: %s\n", event, userMessage(err))
	}
}

// toolEntry turns a PostToolUse into an entry and its body: the whole
// response, rendered as the agent saw it (see toolBody).
func toolEntry(agent string, in hookInput) (memex.Entry, []byte) {
	now := time.Now().UTC()
	e := memex.Entry{
		ID: memex.NewID(now), Created: now,
		Project: ingest.DetectProject(in.Cwd), Session: in.SessionID, Agent: agent,
		Kind: memex.KindTool, Tool: in.ToolName, Input: hookToolInput(in.ToolName, in.ToolInput),
		Attrs: map[string]string{"source": "hook"},
	}
	if in.ToolUseID != "" {
		// "cc:ID" is the key the transcript importer gives the same call,
		// so a later import of the transcript does not archive it twice.
		e.Aliases = []string{"cc:" + in.ToolUseID, in.ToolUseID}
	}
	if in.AgentID != "" {
		e.Attrs["subagent"] = in.AgentID
	}
	body, exit := toolBody(in.ToolResponse)
	if exit != nil {
		e.Exit = exit
	}
	return e, body
}

// hookToolInput is a shell tool's command, else the arguments as one-line
// JSON (as the transcript importer writes them).
func hookToolInput(name string, input json.RawMessage) string {
	var args struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(input, &args) == nil && args.Command != nil {
		return *args.Command
	}
	var buf bytes.Buffer
	if json.Compact(&buf, input) != nil {
		return string(input)
	}
	return buf.String()
}

// toolBody renders a tool response: a string as is; a shell result as its
// stdout followed by its stderr; a file read as the file's content; any
// other value as indented JSON, so that nothing the tool returned is lost.
func toolBody(resp json.RawMessage) ([]byte, *int) {
	resp = bytes.TrimSpace(resp)
	if len(resp) == 0 || string(resp) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(resp, &s) == nil {
		return []byte(s), nil
	}
	var shell struct {
		Stdout      *string `json:"stdout"`
		Stderr      string  `json:"stderr"`
		Interrupted bool    `json:"interrupted"`
		ExitCode    *int    `json:"exit_code"`
	}
	if json.Unmarshal(resp, &shell) == nil && shell.Stdout != nil {
		out := *shell.Stdout
		if shell.Stderr != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += shell.Stderr
		}
		return []byte(out), shell.ExitCode
	}
	var read struct {
		File *struct {
			Content *string `json:"content"`
		} `json:"file"`
	}
	if json.Unmarshal(resp, &read) == nil && read.File != nil && read.File.Content != nil {
		return []byte(*read.File.Content), nil
	}
	var buf bytes.Buffer
	if json.Indent(&buf, resp, "", "  ") != nil {
		return resp, nil
	}
	return buf.Bytes(), nil
}

func (a *app) hookPostToolUse(ctx context.Context, agent string, in hookInput) error {
	e, body := toolEntry(agent, in)
	body, _, _ = redact.Redact(body)
	redactFields(&e)
	if _, r, ok := a.runningServer(ctx); ok {
		if err := remoteAddJSON(ctx, r, e, body); err == nil {
			return nil
		} else if !errors.Is(err, memex.ErrBusy) && !unanswered(err) {
			return err
		}
		return a.spool(spoolItem{Entry: &e, Content: body})
	}
	err := a.withHookStore(ctx, hookLockWait, func(s *archive.Store) error { return addOnce(ctx, s, e, body) })
	if errors.Is(err, memex.ErrBusy) {
		return a.spool(spoolItem{Entry: &e, Content: body})
	}
	return err
}

// addOnce adds a captured tool call unless the call is archived already
// (its "cc:" key present: a transcript import got there first, as it can
// when the host runs the hook in the background).
func addOnce(ctx context.Context, s *archive.Store, e memex.Entry, body []byte) error {
	if len(e.Aliases) > 0 && strings.HasPrefix(e.Aliases[0], "cc:") {
		if _, err := s.Resolve(ctx, e.Aliases[0], ""); err == nil || errors.Is(err, memex.ErrAmbiguous) {
			return nil
		}
	}
	_, err := s.Add(ctx, e, bytes.NewReader(body))
	return err
}

// unanswered reports an error of transport (the server went away), as
// opposed to an answer.
func unanswered(err error) bool {
	var re *remoteError
	return !errors.As(err, &re)
}

// remoteAddJSON adds e with body through a running server, keeping its ID
// and attributes.
func remoteAddJSON(ctx context.Context, r *remote, e memex.Entry, body []byte) error {
	req := map[string]any{"project": e.Project, "session": e.Session, "agent": e.Agent, "kind": e.Kind,
		"tool": e.Tool, "input": e.Input, "exit": e.Exit, "aliases": e.Aliases, "attrs": e.Attrs, "created": e.Created}
	if utf8.Valid(body) {
		req["content"] = string(body)
	} else {
		req["content_base64"] = base64.StdEncoding.EncodeToString(body)
	}
	return r.postJSON(ctx, "/v1/entries", req, nil)
}

// withHookStore runs fn with the store open for writing, waiting at most
// wait for the lock (memex.ErrBusy after), and first archives what earlier
// hooks spooled.
func (a *app) withHookStore(ctx context.Context, wait time.Duration, fn func(*archive.Store) error) error {
	if err := os.MkdirAll(a.home, 0o700); err != nil {
		return err
	}
	lk := flock.New(filepath.Join(a.home, "lock"))
	if err := waitLock(ctx, lk, false, wait); err != nil {
		return err
	}
	defer lk.Unlock()
	s, err := archive.Open(filepath.Join(a.home, "store"), &archive.Options{Logger: a.log})
	if err != nil {
		return err
	}
	if err := a.drainSpool(ctx, s); err != nil {
		a.log.Warn("spool", "err", err)
	}
	err = fn(s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// spoolItem is one spooled hook: an entry to add, or a transcript to
// import.
type spoolItem struct {
	Entry   *memex.Entry `json:"entry,omitempty"`
	Content []byte       `json:"content,omitempty"`
	Ingest  string       `json:"ingest,omitempty"` // transcript path
	Format  string       `json:"format,omitempty"`
}

// spool writes item to $MEMEX_HOME/spool atomically, named so that names
// sort in time order.
func (a *app) spool(item spoolItem) error {
	dir := filepath.Join(a.home, "spool")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(item)
	if err != nil {
		return err
	}
	name := memex.NewID(time.Now()).String() + ".json"
	tmp := filepath.Join(dir, "."+name)
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	a.log.Debug("spooled", "file", name)
	return os.Rename(tmp, filepath.Join(dir, name))
}

// drainSpool archives what hooks spooled while the store was busy, oldest
// first, removing each file once its work is durable. An entry already in
// the store (a drain interrupted after the add) is not added again.
func drainSpoolDir(ctx context.Context, home string, s *archive.Store, log func(string, error)) error {
	dir := filepath.Join(home, "spool")
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) == 0 {
		return err
	}
	sort.Strings(names)
	for _, p := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue // taken by another drainer
		}
		var item spoolItem
		if err := json.Unmarshal(b, &item); err != nil {
			log(p, err)
			os.Rename(p, p+".bad")
			continue
		}
		switch {
		case item.Entry != nil:
			if _, err := s.Get(ctx, item.Entry.ID); errors.Is(err, memex.ErrNotFound) {
				if err := addOnce(ctx, s, *item.Entry, item.Content); err != nil {
					return err
				}
			}
		case item.Ingest != "":
			if _, err := ingest.Run(ctx, s, ingest.Options{Format: ingest.Format(item.Format), Paths: []string{item.Ingest}}); err != nil {
				log(p, err)
			}
		}
		os.Remove(p)
	}
	return nil
}

func (a *app) drainSpool(ctx context.Context, s *archive.Store) error {
	return drainSpoolDir(ctx, a.home, s, func(p string, err error) { a.log.Warn("spool", "file", p, "err", err) })
}

// transcriptFormat is the transcript format of a host's sessions.
func transcriptFormat(host string) ingest.Format {
	if host == "codex" {
		return ingest.Codex
	}
	return ingest.ClaudeCode
}

// hookIngest imports the session's transcript; when the store stays busy
// past wait, the import is spooled.
func (a *app) hookIngest(ctx context.Context, format ingest.Format, in hookInput, wait time.Duration) error {
	if in.TranscriptPath == "" {
		return nil
	}
	if _, r, ok := a.runningServer(ctx); ok {
		return r.postJSON(ctx, "/v1/ingest", api.IngestRequest{Format: string(format), Paths: []string{in.TranscriptPath}}, nil)
	}
	err := a.withHookStore(ctx, wait, func(s *archive.Store) error {
		_, err := ingest.Run(ctx, s, ingest.Options{Format: format, Paths: []string{in.TranscriptPath}})
		return err
	})
	if errors.Is(err, memex.ErrBusy) {
		return a.spool(spoolItem{Ingest: in.TranscriptPath, Format: string(format)})
	}
	return err
}

// hookSessionStart injects context: after a compaction, this session's
// IndexedSummary; otherwise the project's recent memory across sessions
// and agents.
func (a *app) hookSessionStart(ctx context.Context, in hookInput) error {
	req := api.ContextRequest{Budget: contextBudget}
	var intro string
	if in.Source == "compact" {
		if in.SessionID == "" {
			return nil
		}
		req.Session = in.SessionID
		intro = "memex archived this session's tool outputs before the compaction. Each line below is one entry: its ID, what ran and how it ended. Read any entry's exact output with the memex_read tool (ids: [ID], budget in tokens) or `memex show ID`; search with memex_search.\n"
	} else {
		req.Project = ingest.DetectProject(in.Cwd)
		if req.Project == "" {
			return nil
		}
		intro = "memex: recent work archived for this project (" + req.Project + ") by earlier sessions and agents, one line per entry with its ID. Read any entry's exact output with the memex_read tool (ids: [ID]) or `memex show ID`; search with memex_search.\n"
	}
	text, err := a.hookContext(ctx, req)
	if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrBusy) {
		return nil // nothing archived yet, or the store is busy: inject nothing
	}
	if err != nil || strings.TrimSpace(text) == "" {
		return err
	}
	out := intro + cutLines(text, contextChars-len(intro))
	return json.NewEncoder(a.stdout).Encode(map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": "SessionStart", "additionalContext": out},
	})
}

// hookContext builds an IndexedSummary through the running server or the
// store (read-only, shared lock).
func (a *app) hookContext(ctx context.Context, req api.ContextRequest) (string, error) {
	if _, r, ok := a.runningServer(ctx); ok {
		q := map[string][]string{"budget": {fmt.Sprint(req.Budget)}}
		if req.Session != "" {
			q["session"] = []string{req.Session}
		}
		if req.Project != "" {
			q["project"] = []string{req.Project}
		}
		var res api.ContextResult
		if err := r.getJSON(ctx, "/v1/context", q, &res); err != nil {
			return "", err
		}
		return res.Text, nil
	}
	var text string
	err := lockedStore{a: a, wait: 2 * time.Second}.with(ctx, false, func(s *archive.Store) error {
		res, err := deref.New(s).Context(ctx, deref.ContextOptions{Session: req.Session, Project: req.Project, Budget: req.Budget})
		text = res.Text
		return err
	})
	return text, err
}

// cutLines returns the whole lines of s that fit in max bytes (at least
// one line, cut), with a last line saying how many were left out.
func cutLines(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const note = "[memex: %d more lines left out; memex_context lists them all]\n"
	limit := max - len(note) - 8
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	i := 0
	for ; i < len(lines) && b.Len()+len(lines[i]) <= limit; i++ {
		b.WriteString(lines[i])
	}
	fmt.Fprintf(&b, note, len(lines)-i)
	return b.String()
}

// codexNotify imports the rollout of the thread a Codex notify names.
func (a *app) codexNotify(ctx context.Context, raw []byte) error {
	var n struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return err
	}
	if n.ThreadID == "" || strings.ContainsAny(n.ThreadID, "/\\*?[") {
		return nil
	}
	dir := os.Getenv("CODEX_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return err
		}
		dir = filepath.Join(home, ".codex")
	}
	found, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*"+n.ThreadID+".jsonl"))
	if len(found) == 0 {
		return nil
	}
	return a.hookIngest(ctx, ingest.Codex, hookInput{TranscriptPath: found[len(found)-1]}, hookLockWait)
}
