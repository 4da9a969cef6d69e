package index

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
)

// call is one tool call found in the corpora: what ran and what it output.
type call struct {
	agent, session, tool, input string
	output                      []byte
}

// loadCalls extracts the tool calls of the shared corpora (mini-swe-agent
// trajectories, SWE-agent trajectories, Claude Code transcripts) with a
// deliberately small reader: the evaluation needs commands and outputs,
// not the full fidelity of the ingest package.
func loadCalls(tb testing.TB) []call {
	tb.Helper()
	root := testutil.Corpora(tb)
	var calls []call
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasPrefix(rel, "mini-swe-agent"+string(filepath.Separator)) && strings.HasSuffix(path, ".traj.json"):
			calls = append(calls, miniSWE(tb, path)...)
		case strings.HasPrefix(rel, "swe-agent"+string(filepath.Separator)) && strings.HasSuffix(path, ".traj"):
			calls = append(calls, sweAgent(tb, path)...)
		case strings.HasPrefix(rel, "claude-code"+string(filepath.Separator)) && strings.HasSuffix(path, ".jsonl"):
			calls = append(calls, claudeCode(tb, path)...)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].session < calls[j].session })
	return calls
}

var bashBlock = regexp.MustCompile("(?s)```bash\\s*\\n(.*?)```")

func miniSWE(tb testing.TB, path string) []call {
	var doc struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	readJSON(tb, path, &doc)
	session := strings.TrimSuffix(filepath.Base(path), ".traj.json")
	var out []call
	for i := 0; i+1 < len(doc.Messages); i++ {
		m, next := doc.Messages[i], doc.Messages[i+1]
		if m.Role != "assistant" || next.Role != "user" || !strings.Contains(next.Content, "<returncode>") {
			continue
		}
		blocks := bashBlock.FindAllStringSubmatch(m.Content, -1)
		if len(blocks) != 1 {
			continue
		}
		out = append(out, call{agent: "mini-swe-agent", session: session, tool: "bash",
			input: strings.TrimSpace(blocks[0][1]), output: []byte(next.Content)})
	}
	return out
}

func sweAgent(tb testing.TB, path string) []call {
	var doc struct {
		Trajectory []struct {
			Action      string `json:"action"`
			Observation string `json:"observation"`
		} `json:"trajectory"`
	}
	readJSON(tb, path, &doc)
	session := strings.TrimSuffix(filepath.Base(path), ".traj")
	var out []call
	for _, st := range doc.Trajectory {
		if strings.TrimSpace(st.Action) == "" {
			continue
		}
		out = append(out, call{agent: "swe-agent", session: session, tool: "bash",
			input: strings.TrimSpace(st.Action), output: []byte(st.Observation)})
	}
	return out
}

func claudeCode(tb testing.TB, path string) []call {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	var line struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
		Message   struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	uses := map[string]call{}
	var order []string
	results := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line.Message.Content = nil
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		var blocks []block
		if json.Unmarshal(line.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				uses[b.ID] = call{agent: "claude-code", session: line.SessionID, tool: b.Name, input: toolInput(b.Input)}
				order = append(order, b.ID)
			case "tool_result":
				results[b.ToolUseID] = resultText(b.Content)
			}
		}
	}
	var out []call
	for _, id := range order {
		c := uses[id]
		if r, ok := results[id]; ok && c.input != "" {
			c.output = r
			out = append(out, c)
		}
	}
	return out
}

// toolInput is the command of a Bash call, the path of a file tool, else
// the arguments as JSON.
func toolInput(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	for _, k := range []string{"command", "file_path", "pattern", "url", "query", "path"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return string(raw)
}

func resultText(raw json.RawMessage) []byte {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []byte(s)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return raw
	}
	var b bytes.Buffer
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func readJSON(tb testing.TB, path string, v any) {
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// docsOf turns calls into index documents with IDs in corpus order (a
// summary like the one the archive derives: tool and command first).
func docsOf(calls []call, project string) []Doc {
	docs := make([]Doc, len(calls))
	base := t0
	for i, c := range calls {
		created := base.Add(time.Duration(i) * time.Second)
		docs[i] = Doc{Entry: memex.Entry{
			ID: memex.NewID(created), Project: project, Session: c.session, Agent: c.agent,
			Kind: memex.KindTool, Tool: c.tool, Input: c.input, Created: created,
			Summary: truncate(c.tool+": "+firstLine(c.input), 200), Tokens: int64(len(c.output) / 4),
			Bytes: int64(len(c.output)),
		}, Content: c.output}
	}
	return docs
}

func TestCorporaCalls(t *testing.T) {
	calls := loadCalls(t)
	agents := map[string]int{}
	var bytes int
	for _, c := range calls {
		agents[c.agent]++
		bytes += len(c.output)
	}
	t.Logf("%d tool calls, %d output bytes, by agent %v", len(calls), bytes, agents)
	if agents["mini-swe-agent"] == 0 || agents["claude-code"] == 0 || agents["swe-agent"] == 0 {
		t.Fatalf("an agent's calls are missing: %v", agents)
	}
}
