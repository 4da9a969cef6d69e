package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/lazyre"
)

const agentGemini = "gemini"

// Gemini CLI records a session under
// ~/.gemini/tmp/PROJECT/chats/session-DATE-ID.json (older builds: one JSON
// document) or .jsonl (newer: a metadata line, then one line per message,
// written again whole when the message changes; {"$set":{...}} updates
// the metadata, {"$rewindTo":ID} drops a message and those after it).
// PROJECT is the sha256 of the project's path (older) or a short name
// whose .project_root file holds the path (newer). A subagent's session is
// chats/PARENT/ID.jsonl.

type geminiSession struct {
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Kind        string          `json:"kind"`
	Directories []string        `json:"directories"`
	Messages    []geminiMessage `json:"messages"`
}

type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	ToolCalls []geminiToolCall `json:"toolCalls"`
}

type geminiToolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        string          `json:"status"`
	Timestamp     string          `json:"timestamp"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// geminiRecord is one line of a .jsonl session: metadata, a message, a
// metadata update or a rewind.
type geminiRecord struct {
	geminiMessage
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Kind        string          `json:"kind"`
	Directories []string        `json:"directories"`
	Set         json.RawMessage `json:"$set"`
	RewindTo    *string         `json:"$rewindTo"`
}

// readGeminiJSONL folds a .jsonl session into its final state, as Gemini
// CLI loads it.
func readGeminiJSONL(s *source) (geminiSession, bool) {
	var sess geminiSession
	var order []string
	byID := map[string]geminiMessage{}
	saw := false
	for no, line := range bytes.Split(s.data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r geminiRecord
		if err := json.Unmarshal(line, &r); err != nil {
			s.skip(s.line+no, "malformed json", err)
			continue
		}
		switch {
		case r.RewindTo != nil:
			saw = true
			if i := indexOf(order, *r.RewindTo); i >= 0 {
				for _, id := range order[i:] {
					delete(byID, id)
				}
				order = order[:i]
			} else {
				order, byID = nil, map[string]geminiMessage{}
			}
		case len(r.Set) > 0:
			saw = true
			var set struct {
				Messages    *[]geminiMessage `json:"messages"`
				Directories []string         `json:"directories"`
				Kind        string           `json:"kind"`
			}
			if err := json.Unmarshal(r.Set, &set); err != nil {
				s.skip(s.line+no, "malformed $set", err)
				continue
			}
			if set.Directories != nil {
				sess.Directories = set.Directories
			}
			if set.Messages != nil {
				order, byID = nil, map[string]geminiMessage{}
				for _, m := range *set.Messages {
					order = append(order, m.ID)
					byID[m.ID] = m
				}
			}
		case r.ID != "":
			saw = true
			if _, ok := byID[r.ID]; !ok {
				order = append(order, r.ID)
			}
			byID[r.ID] = r.geminiMessage
		case r.SessionID != "":
			saw = true
			sess.SessionID, sess.ProjectHash, sess.Kind = r.SessionID, r.ProjectHash, r.Kind
			if r.Directories != nil {
				sess.Directories = r.Directories
			}
		default:
			s.unknown("line")
		}
	}
	for _, id := range order {
		sess.Messages = append(sess.Messages, byID[id])
	}
	return sess, saw
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

var geminiExitRE = lazyre.New(`(?m)^Exit Code: (-?\d+)`)

// parseGemini reads a Gemini CLI session: messages of the user and the
// model, the model's thoughts as reasoning, each finished tool call with
// its result, errors as events.
func parseGemini(ctx context.Context, s *source) error {
	var sess geminiSession
	if strings.HasSuffix(s.path, ".jsonl") {
		var ok bool
		if sess, ok = readGeminiJSONL(s); !ok {
			return nil
		}
	} else if err := json.Unmarshal(s.data, &sess); err != nil && !s.readWithout(err) {
		s.badDocument("malformed json", err)
		return nil
	} else if sess.SessionID == "" && sess.Messages == nil {
		s.badDocument("no sessionId or messages", nil)
		return nil
	}
	session := sess.SessionID
	if session == "" {
		session = sessionFromPath(s.path)
	}
	s.st.Session = session
	cwd := geminiProjectRoot(s.path, sess)
	project := s.project(cwd)
	base := map[string]string{}
	if cwd != "" {
		base["cwd"] = cwd
	}
	if sess.Kind == "subagent" {
		base["subagent"] = "true"
		if parent := filepath.Base(filepath.Dir(s.path)); parent != "chats" {
			base["parent_session"] = parent
		}
	}
	clk := clock{fallback: s.mtime.UTC()}
	tools := 0
	entry := func(kind memex.Kind, ts string) memex.Entry {
		a := make(map[string]string, len(base)+2)
		for k, v := range base {
			a[k] = v
		}
		return memex.Entry{Project: project, Session: session, Agent: agentGemini, Kind: kind, Created: clk.at(parseTime(ts)), Attrs: a}
	}
	key := func(m *geminiMessage, part string) string {
		return "gemini:" + session + ":" + m.ID + part
	}
	for i := range sess.Messages {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := &sess.Messages[i]
		if m.ID == "" {
			s.skip(0, "message without id", nil)
			continue
		}
		switch m.Type {
		case "user", "gemini":
			if len(m.Thoughts) > 0 {
				var parts []string
				for _, th := range m.Thoughts {
					parts = append(parts, strings.TrimSpace(strings.Join(nonEmptyStrings(th.Subject, th.Description), ": ")))
				}
				if text := strings.Join(parts, "\n"); nonEmpty(text) {
					e := entry(memex.KindReasoning, m.Timestamp)
					e.Attrs["model"] = m.Model
					s.emit(Record{Entry: e, Body: []byte(text), Key: key(m, ":thoughts")})
				}
			}
			if text := geminiText(m.Content); nonEmpty(text) {
				e := entry(memex.KindMessage, m.Timestamp)
				e.Attrs["role"] = "user"
				if m.Type == "gemini" {
					e.Attrs["role"] = "assistant"
					e.Attrs["model"] = m.Model
				}
				s.emit(Record{Entry: e, Body: []byte(text), Key: key(m, "")})
			}
			for j := range m.ToolCalls {
				tc := &m.ToolCalls[j]
				if tc.ID == "" {
					s.skip(0, "tool call without id", nil)
					continue
				}
				switch tc.Status {
				case "success", "error", "cancelled":
				default:
					// Still scheduled or running: the next read of the
					// file, once it has finished, archives it.
					s.ignore("tool call " + tc.Status)
					continue
				}
				ts := tc.Timestamp
				if ts == "" {
					ts = m.Timestamp
				}
				e := entry(memex.KindTool, ts)
				e.Tool, e.Input = tc.Name, ToolInput(tc.Args)
				e.Aliases = []string{tc.ID, toolAlias(session, tools)}
				tools++
				body := geminiText(tc.Result)
				if !nonEmpty(body) {
					body = geminiText(tc.ResultDisplay)
				}
				e.Exit = geminiExit(tc.Status, body)
				if tc.Status == "cancelled" {
					e.Attrs["result"] = "cancelled"
				}
				s.emit(Record{Entry: e, Body: []byte(body), Key: ToolKey(agentGemini, session, tc.ID)})
			}
		case "error", "warning":
			e := entry(memex.KindEvent, m.Timestamp)
			e.Attrs["event"] = m.Type
			s.emit(Record{Entry: e, Body: []byte(geminiText(m.Content)), Key: key(m, "")})
		case "info":
			s.ignore("info")
		default:
			s.unknown("message:" + m.Type)
		}
	}
	return nil
}

func nonEmptyStrings(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// geminiExit is a finished tool call's exit status: the shell's exit code
// when its result states one, else 0 for success and 1 for an error.
func geminiExit(status, body string) *int {
	if m := geminiExitRE().FindStringSubmatch(body); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return memex.IntPtr(n)
		}
	}
	switch status {
	case "success":
		return memex.IntPtr(0)
	case "error":
		return memex.IntPtr(1)
	}
	return nil
}

// geminiText is the text of a content or tool result: a string, or a list
// of parts ({text}, {functionResponse:{response:{output|error|...}}},
// inline data referenced by a marker), joined with "\n".
func geminiText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if s, ok := jsonString(raw); ok {
		return s
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		var one json.RawMessage
		if json.Unmarshal(raw, &one) != nil || len(one) == 0 || one[0] != '{' {
			return compactJSON(raw)
		}
		parts = []json.RawMessage{one}
	}
	var out []string
	for _, p := range parts {
		if s, ok := jsonString(p); ok {
			out = append(out, s)
			continue
		}
		var part struct {
			Text             *string `json:"text"`
			FunctionResponse *struct {
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
			InlineData *struct {
				MimeType string `json:"mimeType"`
				Data     string `json:"data"`
			} `json:"inlineData"`
		}
		if json.Unmarshal(p, &part) != nil {
			out = append(out, compactJSON(p))
			continue
		}
		switch {
		case part.Text != nil:
			out = append(out, *part.Text)
		case part.FunctionResponse != nil:
			var r struct {
				Output *string `json:"output"`
				Error  *string `json:"error"`
			}
			resp := part.FunctionResponse.Response
			switch {
			case json.Unmarshal(resp, &r) == nil && r.Output != nil:
				out = append(out, *r.Output)
			case r.Error != nil:
				out = append(out, *r.Error)
			default:
				out = append(out, compactJSON(resp))
			}
		case part.InlineData != nil:
			out = append(out, "[inline data: "+part.InlineData.MimeType+", "+strconv.Itoa(len(part.InlineData.Data)/4*3)+" bytes]")
		default:
			out = append(out, compactJSON(p))
		}
	}
	return strings.Join(out, "\n")
}

// geminiProjectRoot finds the project directory of a session file: the
// .project_root file of its project directory, else the path in Gemini's
// projects.json whose sha256 is the session's projectHash (or the project
// directory's name), else the session's first directory.
func geminiProjectRoot(path string, sess geminiSession) string {
	chats := filepath.Dir(path)
	for filepath.Base(chats) != "chats" && chats != filepath.Dir(chats) {
		chats = filepath.Dir(chats)
	}
	projDir := filepath.Dir(chats)
	if b, err := os.ReadFile(filepath.Join(projDir, ".project_root")); err == nil {
		if p := strings.TrimSpace(string(b)); p != "" {
			return p
		}
	}
	hashes := []string{sess.ProjectHash, filepath.Base(projDir)}
	geminiDir := filepath.Dir(filepath.Dir(projDir)) // .../.gemini (projDir is .../.gemini/tmp/PROJECT)
	if b, err := os.ReadFile(filepath.Join(geminiDir, "projects.json")); err == nil {
		var reg struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(b, &reg) == nil {
			for p := range reg.Projects {
				h := sha256.Sum256([]byte(p))
				if hx := hex.EncodeToString(h[:]); hx == hashes[0] || hx == hashes[1] {
					return p
				}
			}
		}
	}
	if len(sess.Directories) > 0 {
		return sess.Directories[0]
	}
	return ""
}
