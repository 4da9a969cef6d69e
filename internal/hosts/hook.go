package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
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

// HookHosts lists the hosts that run memex hooks (OpenCode through the
// plugin install writes, see opencode.go).
var HookHosts = []string{"claude-code", "codex", "gemini", "opencode"}

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
	// Error and IsInterrupt are Claude Code's PostToolUseFailure: the
	// failure as the agent saw it, and whether the user interrupted.
	Error       string `json:"error"`
	IsInterrupt bool   `json:"is_interrupt"`

	// Raw is the whole input as read.
	Raw []byte `json:"-"`
	// InvalidUTF8 counts the byte sequences of Raw that are not valid
	// UTF-8: the JSON decoder reads each as U+FFFD.
	InvalidUTF8 int `json:"-"`
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
	in.InvalidUTF8, _ = ingest.InvalidUTF8(raw)
	return in, nil
}

// Event normalises an event name: "session-start" and "sessionstart" are
// SessionStart. A name memex does not handle comes back as it is.
func Event(s string) string {
	k := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	for _, e := range []string{"PostToolUse", "PostToolUseFailure", "PreCompact", "PreCompress", "AfterAgent", "SessionStart", "Stop", "SubagentStop", "SessionEnd"} {
		if strings.ToLower(e) == k {
			return e
		}
	}
	return s
}

// TranscriptFormat is the transcript format of a host's sessions.
func TranscriptFormat(host string) ingest.Format {
	switch host {
	case "codex":
		return ingest.Codex
	case "gemini":
		return ingest.Gemini
	case "opencode":
		return ingest.OpenCode
	}
	return ingest.ClaudeCode
}

// ToolEntry turns a PostToolUse (or Claude Code's PostToolUseFailure)
// into an entry and its body: the whole response, rendered as the agent
// saw it. Its key, input and exit status follow the rules the host's
// transcript importer follows for the same call (ingest.ToolKey,
// ingest.ToolInput, ingest.ClaudeExit, ingest.CodexOutput), so that a later
// import finds the call archived, and an entry reads the same whichever
// path archived it first. The file lines the body shows are noted as the
// importers note them (ingest.RecordShown). The key is the entry's first
// alias (see Key). memex hook and memex-hook both build their entry here.
func ToolEntry(host string, in HookInput) (memex.Entry, []byte) {
	now := time.Now().UTC()
	e := memex.Entry{
		ID: memex.NewID(now), Created: now,
		Project: ingest.DetectProject(in.Cwd), Session: in.SessionID, Agent: host,
		Kind: memex.KindTool, Tool: in.ToolName, Input: ingest.ToolInput(in.ToolInput),
		Attrs: map[string]string{"source": "hook"},
	}
	if in.ToolUseID != "" {
		e.Aliases = []string{ingest.ToolKey(host, in.SessionID, in.ToolUseID)}
		// An id the archive refuses as an alias (of an ID's form) would
		// keep the call spooled for good; the importers leave it out too.
		if memex.CheckAlias(in.ToolUseID) == nil {
			e.Aliases = append(e.Aliases, in.ToolUseID)
		}
	}
	if in.Cwd != "" {
		// As the transcript importers record it: paths are told relative
		// to it (a lesson's fix files, a procedure's cd).
		e.Attrs["cwd"] = in.Cwd
	}
	if in.AgentID != "" {
		e.Attrs["subagent"] = in.AgentID
	}
	if in.InvalidUTF8 > 0 {
		// The host's JSON was not valid UTF-8: what is archived has
		// U+FFFD where those bytes were. The entry says how many.
		e.Attrs["invalid_utf8"] = strconv.Itoa(in.InvalidUTF8)
	}
	var body []byte
	switch {
	case host == "opencode":
		text, exit, title := openCodeResponse(in.ToolResponse)
		body, e.Exit = []byte(text), exit
		if title != "" {
			e.Attrs["title"] = title
		}
	case host == "codex":
		// Codex gives a shell call's raw output, without the exit status
		// and the lines around it that the model saw and its rollout
		// records; the rollout import completes the entry (package
		// ingest, completeHooked).
		text, exit := ingest.CodexOutput(in.ToolResponse)
		body, e.Exit = []byte(text), exit
	case Event(in.Event) == "PostToolUseFailure":
		body = []byte(in.Error)
		if in.IsInterrupt {
			e.Attrs["interrupted"] = "true"
		}
		failed := true
		e.Exit = ingest.ClaudeExit(&failed, nil, in.Error)
	default:
		body = toolBody(in.ToolResponse)
		e.Exit = ingest.ClaudeExit(nil, in.ToolResponse, string(body))
	}
	ingest.RecordShown(&e, in.Cwd, body)
	return e, body
}

// Key is the idempotency key ToolEntry gave e, "" for an entry without
// one.
func Key(e memex.Entry) string {
	if e.Attrs["source"] != "hook" || len(e.Aliases) == 0 || !strings.Contains(e.Aliases[0], ":") {
		return ""
	}
	return e.Aliases[0]
}

// toolBody renders a Claude Code tool response: a string as is; a shell
// result as its stdout followed by its stderr; a file read as the file's
// content; any other value as indented JSON, so that nothing the tool
// returned is lost.
func toolBody(resp json.RawMessage) []byte {
	resp = bytes.TrimSpace(resp)
	if len(resp) == 0 || string(resp) == "null" {
		return nil
	}
	var s string
	if json.Unmarshal(resp, &s) == nil {
		return []byte(s)
	}
	var shell struct {
		Stdout *string `json:"stdout"`
		Stderr string  `json:"stderr"`
	}
	if json.Unmarshal(resp, &shell) == nil && shell.Stdout != nil {
		out := *shell.Stdout
		if shell.Stderr != "" {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out += shell.Stderr
		}
		return []byte(out)
	}
	var read struct {
		File *struct {
			Content *string `json:"content"`
		} `json:"file"`
	}
	if json.Unmarshal(resp, &read) == nil && read.File != nil && read.File.Content != nil {
		return []byte(*read.File.Content)
	}
	// Indented for reading, unless indenting would make it much larger
	// than what the tool returned (deep nesting indents each level again:
	// 9,000 nested arrays would become 162 MB); then as it came.
	if indentedSize(resp) > maxIndented(len(resp)) {
		return resp
	}
	var buf bytes.Buffer
	if json.Indent(&buf, resp, "", "  ") != nil {
		return resp
	}
	return buf.Bytes()
}

// maxIndented bounds what indenting n bytes of JSON may make of them.
func maxIndented(n int) int { return 2*n + 64<<10 }

// indentedSize is the size json.Indent with a two-space indent gives b
// (an upper bound: an empty object or array stays on one line).
func indentedSize(b []byte) int {
	size, depth, inString := len(b), 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			size += 1 + 2*depth
		case '}', ']':
			depth--
			size += 1 + 2*max(depth, 0)
		case ',':
			size += 1 + 2*depth
		case ':':
			size++
		}
	}
	return size
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
