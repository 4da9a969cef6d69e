package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
)

const (
	// MaxHookInput bounds what a hook reads from the host.
	MaxHookInput = 256 << 20
	// ContextChars is the host's cap on injected context (Claude Code
	// cuts additionalContext at 10,000 characters).
	ContextChars = 10000
)

// HookHosts lists the hosts that run memex hooks.
var HookHosts = []string{"claude-code", "codex"}

// HasHooks reports whether host runs memex hooks.
func HasHooks(host string) bool {
	for _, h := range HookHosts {
		if h == host {
			return true
		}
	}
	return false
}

// HookInput is what Claude Code (and Codex, for the events it shares)
// writes on a hook's stdin.
type HookInput struct {
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

	// Raw is the whole input as read.
	Raw []byte `json:"-"`
}

// ReadHook reads and decodes a hook's input (at most MaxHookInput bytes).
func ReadHook(r io.Reader) (HookInput, error) {
	var in HookInput
	raw, err := io.ReadAll(io.LimitReader(r, MaxHookInput))
	if err != nil {
		return in, fmt.Errorf("read input: %w", err)
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("input is not the host's JSON: %v", err)
	}
	in.Raw = raw
	return in, nil
}

// Event normalises an event name: "session-start" and "sessionstart" are
// SessionStart. A name memex does not handle comes back as it is.
func Event(s string) string {
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	for _, e := range []string{"PostToolUse", "PreCompact", "SessionStart", "Stop", "SubagentStop", "SessionEnd"} {
		if strings.ToLower(e) == k {
			return e
		}
	}
	return s
}

// TranscriptFormat is the transcript format of a host's sessions.
func TranscriptFormat(host string) ingest.Format {
	if host == "codex" {
		return ingest.Codex
	}
	return ingest.ClaudeCode
}

// ToolEntry turns a PostToolUse into an entry and its body: the whole
// response, rendered as the agent saw it (see toolBody).
func ToolEntry(host string, in HookInput) (memex.Entry, []byte) {
	now := time.Now().UTC()
	e := memex.Entry{
		ID: memex.NewID(now), Created: now,
		Project: ingest.DetectProject(in.Cwd), Session: in.SessionID, Agent: host,
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

// ContextOutput is what a SessionStart hook prints to inject text into the
// agent's context: the host's JSON, with intro and as many whole lines of
// text as fit in the host's cap.
func ContextOutput(w io.Writer, intro, text string) error {
	out := intro + cutLines(text, ContextChars-len(intro))
	return json.NewEncoder(w).Encode(map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": "SessionStart", "additionalContext": out},
	})
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

// CodexNotifyRollout returns the rollout file of the thread a Codex notify
// names (its JSON argument), "" when it names none or the rollout is not
// found.
func CodexNotifyRollout(raw []byte) (string, error) {
	var n struct {
		Type     string `json:"type"`
		ThreadID string `json:"thread-id"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", err
	}
	if n.ThreadID == "" || strings.ContainsAny(n.ThreadID, "/\\*?[") {
		return "", nil
	}
	home, _ := os.UserHomeDir()
	dir := ingest.CodexHome(os.Getenv, home)
	found, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*"+n.ThreadID+".jsonl"))
	if len(found) == 0 {
		return "", nil
	}
	return found[len(found)-1], nil
}
