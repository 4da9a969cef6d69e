package ingest

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsondec"
	"github.com/memex-archive/memex/internal/lazyre"
)

const agentClaude = "claude-code"

type ccLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	Version          string          `json:"version"`
	GitBranch        string          `json:"gitBranch"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	AgentID          string          `json:"agentId"`
	Content          json.RawMessage `json:"content"`
	LogicalParent    string          `json:"logicalParentUuid"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
	Message *struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	// Content is decoded with the line, in one pass: a string or a block
	// list ([]any of objects). Tool outputs are the bulk of a transcript,
	// and decoding them as raw JSON first would scan them twice more.
	Content  any       `json:"content"`
	IsError  *bool     `json:"is_error"`
	ToolName string    `json:"tool_name"`
	Source   *ccSource `json:"source"`
}

type ccSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// ccPending is a tool_use waiting for its tool_result.
type ccPending struct {
	rec   Record
	off   int64 // file offset of the tool_use line
	line  int
	index int // its N in SESSION#N
}

// ccMetadataTypes are line types that carry no conversation content.
var ccMetadataTypes = map[string]bool{
	"summary": true, "file-history-snapshot": true, "queue-operation": true, "last-prompt": true,
	"permission-mode": true, "custom-title": true, "tag": true, "progress": true, "attachment": true,
	"agent-name": true, "pr-link": true,
}

func parseClaude(ctx context.Context, s *source) error {
	session := sessionFromPath(s.path)
	s.st.Session = session
	base := map[string]string{}
	subagent := strings.HasPrefix(session, "agent-")
	if subagent {
		readSubagentMeta(strings.TrimSuffix(s.path, ".jsonl")+".meta.json", base)
	}
	spillDir := claudeSpillDir(s.path)
	clk := clock{fallback: s.mtime.UTC()}
	tools := s.st.Tools
	pending := map[string]*ccPending{}
	var order []string // pending ids in tool_use order

	newEntry := func(l *ccLine, kind memex.Kind, t time.Time) memex.Entry {
		a := make(map[string]string, len(base)+6)
		for k, v := range base {
			a[k] = v
		}
		if l.Cwd != "" {
			a["cwd"] = l.Cwd
		}
		if l.GitBranch != "" {
			a["git_branch"] = l.GitBranch
		}
		if l.UUID != "" {
			a["uuid"] = l.UUID
		}
		if subagent && l.SessionID != "" && l.SessionID != session {
			a["parent_session"] = l.SessionID
		}
		if l.IsSidechain {
			a["sidechain"] = "true"
		}
		return memex.Entry{
			Project: s.project(l.Cwd), Session: session, Agent: agentClaude, Kind: kind,
			Created: t, Attrs: a,
		}
	}
	key := func(l *ccLine, i, n int, raw []byte) string {
		id := l.UUID
		if id == "" {
			id = session + ":" + shortHash(raw)
		}
		if n > 1 {
			return "cc:" + id + "." + strconv.Itoa(i)
		}
		return "cc:" + id
	}

	end, endLine, err := s.eachLine(ctx, func(raw []byte, off int64, no int) error {
		var l ccLine
		if err := jsondec.Unmarshal(raw, &l); err != nil && !s.lineWithout(no, err) {
			s.skip(no, "malformed json", err)
			return nil
		}
		if l.Cwd != "" && l.Cwd != s.st.Cwd {
			s.st.Cwd = l.Cwd
			s.st.Project = s.project(l.Cwd)
		}
		t := clk.at(parseTime(l.Timestamp))
		switch l.Type {
		case "user", "assistant":
		case "system":
			if l.Subtype != "compact_boundary" {
				s.ignore("system:" + l.Subtype)
				return nil
			}
			e := newEntry(&l, memex.KindEvent, t)
			e.Attrs["event"] = "compact_boundary"
			if l.LogicalParent != "" {
				e.Attrs["logical_parent"] = l.LogicalParent
			}
			body := "compact_boundary"
			if m := l.CompactMetadata; m != nil {
				e.Attrs["trigger"] = m.Trigger
				if m.PreTokens > 0 {
					e.Attrs["pre_tokens"] = strconv.FormatInt(m.PreTokens, 10)
				}
				body += " trigger=" + m.Trigger + " pre_tokens=" + strconv.FormatInt(m.PreTokens, 10)
			}
			if c, ok := jsonString(l.Content); ok && c != "" {
				body = c
			}
			s.emit(Record{Entry: e, Body: []byte(body), Key: key(&l, 0, 1, raw)})
			return nil
		default:
			if ccMetadataTypes[l.Type] {
				s.ignore(l.Type)
			} else {
				s.unknown(l.Type)
			}
			return nil
		}
		if l.Message == nil {
			s.skip(no, "no message", nil)
			return nil
		}
		// The content is a string (a typed prompt) or a block list.
		if str, ok := jsonString(l.Message.Content); ok {
			if !nonEmpty(str) {
				s.ignore("empty message")
				return nil
			}
			kind := memex.KindMessage
			e := newEntry(&l, kind, t)
			e.Attrs["role"] = l.Type
			if l.IsCompactSummary {
				e.Kind = memex.KindEvent
				e.Attrs["event"] = "compact_summary"
			}
			if l.IsMeta {
				e.Attrs["meta"] = "true"
			}
			s.emit(Record{Entry: e, Body: []byte(str), Key: key(&l, 0, 1, raw)})
			return nil
		}
		var blocks []ccBlock
		if err := jsondec.Unmarshal(l.Message.Content, &blocks); err != nil {
			s.skip(no, "malformed content", err)
			return nil
		}
		for i := range blocks {
			b := &blocks[i]
			k := key(&l, i, len(blocks), raw)
			switch b.Type {
			case "text":
				if !nonEmpty(b.Text) {
					s.ignore("empty text")
					continue
				}
				e := newEntry(&l, memex.KindMessage, t)
				e.Attrs["role"] = l.Type
				if l.Type == "assistant" {
					e.Attrs["model"] = l.Message.Model
					e.Attrs["message_id"] = l.Message.ID
				}
				if l.IsCompactSummary {
					e.Kind = memex.KindEvent
					e.Attrs["event"] = "compact_summary"
				}
				if l.IsMeta {
					e.Attrs["meta"] = "true"
				}
				s.emit(Record{Entry: e, Body: []byte(b.Text), Key: k})
			case "thinking":
				if !nonEmpty(b.Thinking) {
					// The host keeps only the signature of some thinking.
					s.ignore("empty thinking")
					continue
				}
				e := newEntry(&l, memex.KindReasoning, t)
				e.Attrs["model"] = l.Message.Model
				e.Attrs["message_id"] = l.Message.ID
				s.emit(Record{Entry: e, Body: []byte(b.Thinking), Key: k})
			case "redacted_thinking":
				s.ignore("redacted_thinking")
			case "image":
				e := newEntry(&l, memex.KindMessage, t)
				e.Attrs["role"] = l.Type
				s.emit(Record{Entry: e, Body: []byte(imageRef(b)), Key: k})
			case "tool_use":
				if b.ID == "" {
					s.skip(no, "tool_use without id", nil)
					continue
				}
				e := newEntry(&l, memex.KindTool, t)
				e.Tool = b.Name
				e.Input = ToolInput(b.Input)
				e.Attrs["model"] = l.Message.Model
				e.Attrs["message_id"] = l.Message.ID
				e.Aliases = []string{b.ID, toolAlias(session, tools)}
				if _, dup := pending[b.ID]; !dup {
					order = append(order, b.ID)
				}
				pending[b.ID] = &ccPending{rec: Record{Entry: e, Key: ToolKey(agentClaude, session, b.ID)}, off: off, line: no, index: tools}
				tools++
			case "tool_result":
				p, ok := pending[b.ToolUseID]
				if !ok {
					// Its tool_use was archived in an earlier run, or the
					// transcript lost it (a fork starting mid-call).
					s.ignore("tool_result without tool_use")
					continue
				}
				delete(pending, b.ToolUseID)
				rec := p.rec
				body, spilled := resultText(b.Content), ""
				if strings.Contains(body, "<persisted-output>") || strings.Contains(body, "tool-results/") {
					if full, path, ok := readSpilled(spillDir, b.ToolUseID, body); ok {
						body, spilled = full, path
					}
				}
				rec.Body = []byte(body)
				if spilled != "" {
					rec.Entry.Attrs["spilled"] = spilled
				}
				rec.Entry.Exit = ClaudeExit(b.IsError, l.ToolUseResult, body)
				if id := subagentID(l.ToolUseResult); id != "" {
					rec.Entry.Attrs["subagent_session"] = "agent-" + id
				}
				if l.IsSidechain {
					rec.Entry.Attrs["sidechain"] = "true"
				}
				s.emit(rec)
			default:
				s.unknown("block:" + b.Type)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Tool calls still without a result: wait for it while the host may
	// still write it; once the file has settled, archive them without one.
	settled := s.opts.SettleAfter < 0 || s.opts.Now().Sub(s.mtime) >= s.opts.SettleAfter
	s.resume, s.resumeLine, s.resumeTool = end, endLine, tools
	s.unanswered(order, pending, settled)
	return nil
}

// unanswered deals with the tool calls still waiting for their result at
// the end of a file, in call order: once the file has settled they are
// archived without one (Attrs result=missing); until then the resume point
// moves back to the first of them, so that the next run reads the call
// again with its result.
func (s *source) unanswered(order []string, held map[string]*ccPending, settled bool) {
	first := true
	for _, id := range order {
		p, ok := held[id]
		if !ok {
			continue
		}
		if settled {
			p.rec.Entry.Attrs["result"] = "missing"
			s.emit(p.rec)
			continue
		}
		if first {
			s.resume, s.resumeLine, s.resumeTool = p.off, p.line, p.index
			first = false
		}
	}
}

// resultText is a tool_result's content as the agent saw it: a string as
// is; a block list as its text blocks joined with "\n", with images and
// other blocks referenced by a one-line marker rather than inlined.
func resultText(content any) string {
	switch c := content.(type) {
	case nil:
		return ""
	case string:
		return c
	case []any:
		parts := make([]string, 0, len(c))
		for _, x := range c {
			m, _ := x.(map[string]any)
			typ, _ := m["type"].(string)
			switch typ {
			case "text":
				t, _ := m["text"].(string)
				parts = append(parts, t)
			case "image":
				var b ccBlock
				if src, ok := m["source"].(map[string]any); ok {
					b.Source = &ccSource{}
					b.Source.MediaType, _ = src["media_type"].(string)
					b.Source.Data, _ = src["data"].(string)
					b.Source.URL, _ = src["url"].(string)
				}
				parts = append(parts, imageRef(&b))
			case "tool_reference":
				name, _ := m["tool_name"].(string)
				parts = append(parts, "[tool_reference: "+name+"]")
			default:
				parts = append(parts, "["+typ+"]")
			}
		}
		return strings.Join(parts, "\n")
	}
	b, _ := json.Marshal(content)
	return string(b)
}

func imageRef(b *ccBlock) string {
	if b.Source == nil {
		return "[image]"
	}
	if b.Source.URL != "" {
		return "[image: " + b.Source.URL + "]"
	}
	n := len(b.Source.Data) / 4 * 3
	n -= len(b.Source.Data) - len(strings.TrimRight(b.Source.Data, "="))
	return "[image: " + b.Source.MediaType + ", " + strconv.Itoa(n) + " bytes]"
}

var exitCodeRE = lazyre.New(`^(?:Exit code|exit code|Exit status) (-?\d+)`)

// ClaudeExit is a Claude Code tool result's exit status, for the
// transcript's tool_result and a hook's tool_response alike. The host marks a failure
// with is_error true on the tool_result block (a shell result then starts
// with "Exit code N" when the command ran: N, else 1); is_error false, or a
// structured toolUseResult, is success. CLI 1.0.x leaves is_error out on
// success and gives some tools (LS) a plain-string toolUseResult holding
// the output itself, so a string toolUseResult is a failure only in the
// shapes the host writes for failed and rejected calls ("Error: …",
// "<tool_use_error>…", "The user doesn't want to …"). Every failure in the
// sample transcripts also has is_error true; those shapes only cover a
// build that leaves it out. Otherwise the status is unknown.
func ClaudeExit(isError *bool, tur json.RawMessage, body string) *int {
	if isError != nil && *isError {
		if m := exitCodeRE().FindStringSubmatch(body); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return memex.IntPtr(n)
			}
		}
		return memex.IntPtr(1)
	}
	if isError != nil {
		return memex.IntPtr(0)
	}
	if strings.HasPrefix(body, "<tool_use_error>") {
		return memex.IntPtr(1)
	}
	if len(tur) > 0 {
		switch tur[0] {
		case '{':
			return memex.IntPtr(0)
		case '"':
			var s string
			if json.Unmarshal(tur, &s) == nil && !failureText(s) {
				return memex.IntPtr(0)
			}
			return memex.IntPtr(1)
		}
	}
	return nil
}

// failureText reports whether a string toolUseResult has the shape the
// host writes for a failed or rejected tool call rather than its output.
func failureText(s string) bool {
	return strings.HasPrefix(s, "Error:") || strings.HasPrefix(s, "<tool_use_error>") ||
		strings.HasPrefix(s, "The user doesn't want to ")
}

func subagentID(tur json.RawMessage) string {
	if len(tur) == 0 || tur[0] != '{' {
		return ""
	}
	var v struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(tur, &v) != nil {
		return ""
	}
	return v.AgentID
}

func readSubagentMeta(p string, into map[string]string) {
	b, err := readRegular(p)
	if err != nil {
		return
	}
	var m struct {
		AgentType    string `json:"agentType"`
		Description  string `json:"description"`
		WorktreePath string `json:"worktreePath"`
	}
	if json.Unmarshal(b, &m) != nil {
		return
	}
	for k, v := range map[string]string{"agent_type": m.AgentType, "description": m.Description, "worktree": m.WorktreePath} {
		if v != "" {
			into[k] = v
		}
	}
}

// SessionPaths are the paths to import for the whole of one session when
// a hook names only its transcript: the transcript itself and, for Claude
// Code, the directory of its subagents' transcripts when it holds one
// (<project>/<session>/subagents, Claude Code 2.1.x). Claude Code 2.0.x
// kept them beside the transcript (agent-*.jsonl, with the session's id
// inside), which memex ingest claude-code reads.
func SessionPaths(f Format, transcript string) []string {
	paths := []string{transcript}
	if f != ClaudeCode || !strings.HasSuffix(transcript, ".jsonl") {
		return paths
	}
	sub := filepath.Join(filepath.Dir(transcript), sessionFromPath(transcript), "subagents")
	found := false
	_ = filepath.WalkDir(sub, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	if found {
		paths = append(paths, sub)
	}
	return paths
}

// claudeSpillDir is where the host saves tool outputs too large for the
// transcript: <project>/<session>/tool-results for a main transcript, the
// parent session's directory for a subagent's.
func claudeSpillDir(p string) string {
	dir := filepath.Dir(p)
	if filepath.Base(dir) == "subagents" {
		return filepath.Join(filepath.Dir(dir), "tool-results")
	}
	return filepath.Join(dir, sessionFromPath(p), "tool-results")
}

var savedToRE = lazyre.New(`(?:saved to|Saved to|saved at)[:\s]+(\S+)`)

// readSpilled finds the full output of a tool call whose result the host
// replaced by a preview: the path named in the preview, looked up by base
// name in the session's tool-results directory (the transcript may come
// from another machine), or a file named after the tool_use id.
func readSpilled(dir, toolUseID, preview string) (string, string, bool) {
	var candidates []string
	if m := savedToRE().FindStringSubmatch(preview); m != nil {
		name := filepath.Base(strings.TrimRight(m[1], ".,;)"))
		candidates = append(candidates, filepath.Join(dir, name))
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, de := range entries {
			if strings.HasPrefix(de.Name(), toolUseID) {
				candidates = append(candidates, filepath.Join(dir, de.Name()))
			}
		}
	}
	for _, c := range candidates {
		if b, err := readRegular(c); err == nil {
			return string(b), c, true
		}
	}
	return "", "", false
}
