package ingest

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsondec"
	"github.com/memex-archive/memex/internal/lazyre"
)

const agentCodex = "codex"

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Message   json.RawMessage `json:"message"`
	Action    json.RawMessage `json:"action"`
	Status    string          `json:"status"`
	Forked    string          `json:"forked_from_id"`
	CliVer    string          `json:"cli_version"`
	Model     string          `json:"model"`
}

var codexThreadRE = lazyre.New(`([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// codexIgnored are event_msg and response_item types that duplicate what
// is archived from elsewhere, or carry no content.
var codexIgnored = map[string]bool{
	"agent_message": true, "agent_reasoning": true, "agent_reasoning_raw_content": true, "token_count": true,
	"task_started": true, "task_complete": true, "turn_aborted": true, "patch_apply_begin": true,
	"patch_apply_end": true, "exec_command_begin": true, "exec_command_end": true, "mcp_tool_call_begin": true,
	"mcp_tool_call_end": true, "turn_diff": true, "web_search_begin": true, "web_search_end": true,
	"user_message_image": true, "entered_review_mode": true, "exited_review_mode": true, "item_completed": true,
	"exec_command_output_delta": true, "agent_message_delta": true, "plan_update": true, "stream_error": true,
	"background_event": true, "error": true, "shutdown_complete": true, "session_configured": true,
	"ghost_snapshot": true, "reasoning_content_delta": true, "view_image_tool_call": true,
}

func parseCodex(ctx context.Context, s *source) error {
	thread := s.st.Session
	if thread == "" {
		if m := codexThreadRE().FindAllString(sessionFromPath(s.path), -1); len(m) > 0 {
			thread = m[len(m)-1]
		} else {
			thread = sessionFromPath(s.path)
		}
	}
	clk := clock{fallback: s.mtime.UTC()}
	tools := s.st.Tools
	calls := map[string]*ccPending{}
	var order []string
	cwd := s.st.Cwd
	forked := ""

	newEntry := func(kind memex.Kind, l *codexLine) memex.Entry {
		a := map[string]string{}
		if cwd != "" {
			a["cwd"] = cwd
		}
		if forked != "" {
			a["forked_from"] = forked
		}
		return memex.Entry{Project: s.project(cwd), Session: thread, Agent: agentCodex, Kind: kind,
			Created: clk.at(parseTime(l.Timestamp)), Attrs: a}
	}
	lineKey := func(raw []byte) string { return "codex:" + thread + ":" + shortHash(raw) }

	end, endLine, err := s.eachLine(ctx, func(raw []byte, off int64, no int) error {
		var l codexLine
		if err := jsondec.Unmarshal(raw, &l); err != nil && !s.lineWithout(no, err) {
			s.skip(no, "malformed json", err)
			return nil
		}
		var p codexPayload
		if len(l.Payload) > 0 && l.Payload[0] == '{' {
			if err := jsondec.Unmarshal(l.Payload, &p); err != nil && !s.lineWithout(no, err) {
				s.skip(no, "malformed payload", err)
				return nil
			}
		}
		switch l.Type {
		case "session_meta":
			if p.ID != "" && s.st.Session == "" {
				thread = p.ID
			}
			s.st.Session = thread
			forked = p.Forked
			if p.Cwd != "" {
				cwd = p.Cwd
				s.st.Cwd = cwd
				s.st.Project = s.project(cwd)
			}
			s.ignore("session_meta")
		case "turn_context":
			if p.Cwd != "" && p.Cwd != cwd {
				cwd = p.Cwd
				s.st.Cwd = cwd
				s.st.Project = s.project(cwd)
			}
			s.ignore("turn_context")
		case "compacted":
			e := newEntry(memex.KindEvent, &l)
			e.Attrs["event"] = "compacted"
			body := "compacted"
			if m, ok := jsonString(p.Message); ok && m != "" {
				body = m
			}
			s.emit(Record{Entry: e, Body: []byte(body), Key: lineKey(raw)})
		case "event_msg":
			switch p.Type {
			case "user_message":
				msg, _ := jsonString(p.Message)
				if !nonEmpty(msg) {
					s.ignore("event_msg:empty user_message")
					return nil
				}
				e := newEntry(memex.KindMessage, &l)
				e.Attrs["role"] = "user"
				s.emit(Record{Entry: e, Body: []byte(msg), Key: lineKey(raw)})
			case "context_compacted":
				e := newEntry(memex.KindEvent, &l)
				e.Attrs["event"] = "compact_boundary"
				s.emit(Record{Entry: e, Body: []byte("context_compacted"), Key: lineKey(raw)})
			default:
				if codexIgnored[p.Type] {
					s.ignore("event_msg:" + p.Type)
				} else {
					s.unknown("event_msg:" + p.Type)
				}
			}
		case "response_item":
			switch p.Type {
			case "message":
				// User and developer messages here are the prompt plus
				// injected context; the real prompt is mirrored by
				// event_msg.user_message, archived above.
				if p.Role != "assistant" {
					s.ignore("response_item:message:" + p.Role)
					return nil
				}
				text := codexText(p.Content)
				if !nonEmpty(text) {
					s.ignore("response_item:empty message")
					return nil
				}
				e := newEntry(memex.KindMessage, &l)
				e.Attrs["role"] = "assistant"
				s.emit(Record{Entry: e, Body: []byte(text), Key: lineKey(raw)})
			case "reasoning":
				text := codexText(p.Summary)
				if !nonEmpty(text) {
					text = codexText(p.Content)
				}
				if !nonEmpty(text) {
					s.ignore("response_item:encrypted reasoning")
					return nil
				}
				e := newEntry(memex.KindReasoning, &l)
				s.emit(Record{Entry: e, Body: []byte(text), Key: lineKey(raw)})
			case "function_call", "custom_tool_call", "local_shell_call":
				id := p.CallID
				if id == "" {
					id = p.ID
				}
				if id == "" {
					s.skip(no, "tool call without call_id", nil)
					return nil
				}
				e := newEntry(memex.KindTool, &l)
				e.Tool = p.Name
				if p.Type == "local_shell_call" {
					e.Tool = "local_shell"
					e.Input = ToolInput(p.Action)
				} else if p.Type == "custom_tool_call" {
					e.Input = ToolInput(p.Input)
				} else {
					e.Input = ToolInput(p.Arguments)
				}
				e.Aliases = []string{id, toolAlias(thread, tools)}
				if _, dup := calls[id]; !dup {
					order = append(order, id)
				}
				calls[id] = &ccPending{rec: Record{Entry: e, Key: ToolKey(agentCodex, thread, id)}, off: off, line: no, index: tools}
				tools++
			case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
				c, ok := calls[p.CallID]
				if !ok {
					s.ignore("response_item:output without call")
					return nil
				}
				delete(calls, p.CallID)
				body, exit := CodexOutput(p.Output)
				c.rec.Body = []byte(body)
				c.rec.Entry.Exit = exit
				s.emit(c.rec)
			case "web_search_call", "tool_search_call", "image_generation_call":
				e := newEntry(memex.KindTool, &l)
				e.Tool = strings.TrimSuffix(p.Type, "_call")
				e.Input = compactJSON(p.Action)
				e.Aliases = []string{toolAlias(thread, tools)}
				if p.ID != "" {
					e.Aliases = append(e.Aliases, p.ID)
				}
				tools++
				s.emit(Record{Entry: e, Body: []byte(compactJSON(l.Payload)), Key: lineKey(raw)})
			case "compaction", "compaction_summary":
				e := newEntry(memex.KindEvent, &l)
				e.Attrs["event"] = "compaction"
				s.emit(Record{Entry: e, Body: []byte(compactJSON(l.Payload)), Key: lineKey(raw)})
			case "ghost_snapshot":
				s.ignore("response_item:" + p.Type)
			default:
				s.unknown("response_item:" + p.Type)
			}
		default:
			s.unknown(l.Type)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.st.Session = thread
	s.resume, s.resumeLine, s.resumeTool = end, endLine, tools
	settled := s.opts.SettleAfter < 0 || s.opts.Now().Sub(s.mtime) >= s.opts.SettleAfter || strings.HasSuffix(s.path, ".zst")
	s.unanswered(order, calls, settled)
	return nil
}

// codexText joins the text of a content or summary list
// (input_text, output_text, summary_text, text) with "\n".
func codexText(raw json.RawMessage) string {
	if s, ok := jsonString(raw); ok {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "input_image":
			out = append(out, "[image]")
		default:
			if p.Text != "" {
				out = append(out, p.Text)
			}
		}
	}
	return strings.Join(out, "\n")
}

var codexExitRE = lazyre.New(`(?m)^(?:Exit code|Process exited with code):? (-?\d+)`)

// CodexOutput is the text of a Codex tool output as the model saw it, and
// the exit status when the output states one: for a rollout's
// function_call_output and a hook's tool_response alike. Outputs are a string, a content
// list, or (older builds) a JSON string {"output":..., "metadata":{"exit_code":N}}.
func CodexOutput(raw json.RawMessage) (string, *int) {
	s, ok := jsonString(raw)
	if !ok {
		if t := codexText(raw); t != "" {
			return t, nil
		}
		var o struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &o) == nil && o.Content != "" {
			return o.Content, nil
		}
		return compactJSON(raw), nil
	}
	var old struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &old) == nil && old.Output != nil {
		// The model saw the whole JSON string; keep it, take the status.
		return s, old.Metadata.ExitCode
	}
	if m := codexExitRE().FindStringSubmatch(s); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return s, memex.IntPtr(n)
		}
	}
	return s, nil
}
