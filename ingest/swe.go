package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsondec"
	"github.com/memex-archive/memex/internal/lazyre"
)

const (
	agentMiniSWE = "mini-swe-agent"
	agentSWE     = "swe-agent"
)

type mswTraj struct {
	InstanceID string `json:"instance_id"`
	Messages   []struct {
		Role string `json:"role"`
		// Content is decoded with the document, in one pass: a string
		// (mini-swe-agent 1.x) or a list of {type, text} parts.
		Content   any       `json:"content"`
		Timestamp float64   `json:"timestamp"`
		Extra     *mswExtra `json:"extra"`
	} `json:"messages"`
	Info struct {
		ExitStatus string `json:"exit_status"`
		Submission string `json:"submission"`
	} `json:"info"`
}

var (
	bashBlockRE  = lazyre.New("(?s)```(?:bash|sh)\\s*\\n(.*?)\\n?```")
	returnCodeRE = lazyre.New(`<returncode>(-?\d+)</returncode>`)
)

// parseMiniSWE reads a mini-swe-agent .traj.json: the task (first user
// message) as a message; each assistant turn's THOUGHT as reasoning and
// its one bash action, with the observation that answers it, as a tool
// entry; feedback without a return code as a user message; the exit
// status and submission as a closing event.
func parseMiniSWE(ctx context.Context, s *source) error {
	var tr mswTraj
	if err := jsondec.Unmarshal(s.data, &tr); err != nil && !s.readWithout(err) {
		s.badDocument("malformed json", err)
		return nil
	}
	if tr.Messages == nil {
		// Valid JSON, but not a trajectory (another tool's JSON file).
		s.badDocument("no messages", nil)
		return nil
	}
	session := sessionFromPath(s.path)
	project := s.opts.Project
	if project == "" {
		project = sweProject(firstNonEmpty(tr.InstanceID, session))
	}
	clk := clock{fallback: s.mtime.UTC()}
	for _, m := range tr.Messages {
		if t := msgTime(m.Timestamp, m.Extra); !t.IsZero() {
			clk.fallback = t
			break
		}
	}
	tools := 0
	sawTask := false
	entry := func(kind memex.Kind, t time.Time) memex.Entry {
		return memex.Entry{Project: project, Session: session, Agent: agentMiniSWE, Kind: kind, Created: t, Attrs: map[string]string{}}
	}
	key := func(i int, part string) string {
		k := "mswe:" + session + ":" + strconv.Itoa(i)
		if part != "" {
			k += "." + part
		}
		return k
	}
	msgs := tr.Messages
	for i := 0; i < len(msgs); i++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		m := &msgs[i]
		content := anyText(m.Content)
		t := clk.at(msgTime(m.Timestamp, m.Extra))
		switch m.Role {
		case "system":
			s.ignore("system prompt")
		case "user":
			e := entry(memex.KindMessage, t)
			e.Attrs["role"] = "user"
			if !sawTask {
				e.Attrs["task"] = "true"
				sawTask = true
			} else {
				e.Attrs["feedback"] = "true"
			}
			s.emit(Record{Entry: e, Body: []byte(content), Key: key(i, "")})
		case "assistant":
			blocks := bashBlockRE().FindAllStringSubmatchIndex(content, -1)
			thought := content
			if len(blocks) > 0 {
				thought = strings.TrimSpace(content[:blocks[0][0]])
			}
			thought = strings.TrimSpace(strings.TrimPrefix(thought, "THOUGHT:"))
			if nonEmpty(thought) {
				e := entry(memex.KindReasoning, t)
				s.emit(Record{Entry: e, Body: []byte(thought), Key: key(i, "thought")})
			}
			if len(blocks) != 1 {
				// Zero or several actions: the agent ran nothing and gets a
				// format error back, archived as feedback.
				continue
			}
			e := entry(memex.KindTool, t)
			e.Tool = "bash"
			e.Input = content[blocks[0][2]:blocks[0][3]]
			e.Aliases = []string{toolAlias(session, tools)}
			tools++
			k := key(i, "action")
			var body []byte
			if i+1 < len(msgs) && msgs[i+1].Role == "user" {
				obs := anyText(msgs[i+1].Content)
				if rc := returnCodeRE().FindStringSubmatch(obs); rc != nil {
					if n, err := strconv.Atoi(rc[1]); err == nil {
						e.Exit = memex.IntPtr(n)
					}
				}
				body = []byte(obs)
				i++ // the observation is this entry's body
			} else {
				e.Attrs["result"] = "missing"
			}
			s.emit(Record{Entry: e, Body: body, Key: k})
		default:
			s.unknown("role:" + m.Role)
		}
	}
	if tr.Info.ExitStatus != "" || tr.Info.Submission != "" {
		e := entry(memex.KindEvent, clk.at(time.Time{}))
		e.Attrs["event"] = "exit"
		e.Attrs["exit_status"] = tr.Info.ExitStatus
		s.emit(Record{Entry: e, Body: []byte(firstNonEmpty(tr.Info.Submission, tr.Info.ExitStatus)), Key: "mswe:" + session + ":exit"})
	}
	return nil
}

// mswExtra is the part of a message's extra that ingest reads: the
// provider response's creation time (decoded in the same pass as the
// document; the rest of the response, about 40% of a file, is skipped).
type mswExtra struct {
	Response *struct {
		Created float64 `json:"created"`
	} `json:"response"`
}

func msgTime(ts float64, extra *mswExtra) time.Time {
	if ts <= 0 && extra != nil && extra.Response != nil {
		ts = extra.Response.Created
	}
	if ts <= 0 || ts > 1e11 || math.IsNaN(ts) {
		return time.Time{}
	}
	sec, frac := math.Modf(ts)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}

// anyText is the text of content decoded as any: a string as is, a list
// of parts as their text joined with "\n".
func anyText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var out []string
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				if s, ok := m["text"].(string); ok && s != "" {
					out = append(out, s)
				}
			}
		}
		return strings.Join(out, "\n")
	}
	return ""
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

type sweTraj struct {
	Environment string `json:"environment"`
	Trajectory  []struct {
		Action      string          `json:"action"`
		Observation json.RawMessage `json:"observation"`
		Response    string          `json:"response"`
		Thought     string          `json:"thought"`
		State       json.RawMessage `json:"state"`
	} `json:"trajectory"`
	History []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		IsDemo  bool            `json:"is_demo"`
	} `json:"history"`
	Info struct {
		ExitStatus string `json:"exit_status"`
		Submission string `json:"submission"`
	} `json:"info"`
}

// parseSWE reads a SWE-agent .traj: the issue (first non-demo user message
// of the history) as a message, then per trajectory step the thought as
// reasoning and the action with its exact observation as a tool entry.
func parseSWE(ctx context.Context, s *source) error {
	var tr sweTraj
	if err := jsondec.Unmarshal(s.data, &tr); err != nil && !s.readWithout(err) {
		s.badDocument("malformed json", err)
		return nil
	}
	if tr.Trajectory == nil && tr.History == nil {
		// Valid JSON, but not a trajectory (another tool's JSON file).
		s.badDocument("no trajectory", nil)
		return nil
	}
	session := sessionFromPath(s.path)
	project := s.opts.Project
	if project == "" {
		project = sweProject(session)
	}
	t := s.mtime.UTC()
	entry := func(kind memex.Kind) memex.Entry {
		return memex.Entry{Project: project, Session: session, Agent: agentSWE, Kind: kind, Created: t, Attrs: map[string]string{}}
	}
	for i, h := range tr.History {
		if h.Role != "user" || h.IsDemo {
			continue
		}
		text, ok := jsonString(h.Content)
		if !ok {
			text = codexText(h.Content)
		}
		e := entry(memex.KindMessage)
		e.Attrs["role"] = "user"
		e.Attrs["task"] = "true"
		s.emit(Record{Entry: e, Body: []byte(text), Key: "swe:" + session + ":task:" + strconv.Itoa(i)})
		break
	}
	for i, st := range tr.Trajectory {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		k := "swe:" + session + ":" + strconv.Itoa(i)
		if th := strings.TrimSpace(st.Thought); th != "" {
			e := entry(memex.KindReasoning)
			s.emit(Record{Entry: e, Body: []byte(th), Key: k + ".thought"})
		}
		obs, ok := jsonString(st.Observation)
		if !ok {
			obs = compactJSON(st.Observation)
		}
		e := entry(memex.KindTool)
		action := strings.TrimSuffix(st.Action, "\n")
		e.Tool = sweTool(action)
		e.Input = action
		e.Aliases = []string{toolAlias(session, i)}
		if wd := sweWorkingDir(st.State); wd != "" {
			e.Attrs["cwd"] = wd
		}
		s.emit(Record{Entry: e, Body: []byte(obs), Key: k})
	}
	if tr.Info.ExitStatus != "" || tr.Info.Submission != "" {
		e := entry(memex.KindEvent)
		e.Attrs["event"] = "exit"
		e.Attrs["exit_status"] = tr.Info.ExitStatus
		s.emit(Record{Entry: e, Body: []byte(firstNonEmpty(tr.Info.Submission, tr.Info.ExitStatus)), Key: "swe:" + session + ":exit"})
	}
	return nil
}

// sweTool is the command word of an action ("edit", "open", "python", ...).
func sweTool(action string) string {
	f := strings.Fields(action)
	if len(f) == 0 {
		return "bash"
	}
	return f[0]
}

// sweWorkingDir reads working_dir from a step's state, a JSON object or
// (0.x) a JSON-encoded string of one.
func sweWorkingDir(raw json.RawMessage) string {
	if s, ok := jsonString(raw); ok {
		raw = json.RawMessage(s)
	}
	var st struct {
		WorkingDir string `json:"working_dir"`
	}
	if json.Unmarshal(raw, &st) != nil {
		return ""
	}
	return st.WorkingDir
}
