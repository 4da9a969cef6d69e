package ingest

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/memex-archive/memex"
)

// jsonlLine is one line of the generic format (ARCHITECTURE.md §9).
type jsonlLine struct {
	Project string            `json:"project"`
	Session string            `json:"session"`
	Agent   string            `json:"agent"`
	Kind    string            `json:"kind"`
	Tool    string            `json:"tool"`
	Input   string            `json:"input"`
	Content *string           `json:"content"`
	Exit    *int              `json:"exit"`
	Time    string            `json:"time"`
	Key     string            `json:"key"`
	Summary string            `json:"summary"`
	Aliases []string          `json:"aliases"`
	Attrs   map[string]string `json:"attrs"`
}

// parseJSONL reads the generic format: only content is required (present
// and a string, "" included; absent or null skips the line); time, when
// given, is RFC 3339; session defaults to the file name, kind to note,
// agent to "jsonl"; key becomes an alias. A line's identity is its session and its bytes, so re-reading
// a file adds nothing and an edited line is a new record.
func parseJSONL(ctx context.Context, s *source) error {
	defSession := sessionFromPath(s.path)
	clk := clock{fallback: s.mtime.UTC()}
	tools := map[string]int{}
	for k, v := range s.st.SessionTools {
		tools[k] = v
	}
	end, endLine, err := s.eachLine(ctx, func(raw []byte, off int64, no int) error {
		var l jsonlLine
		if err := json.Unmarshal(raw, &l); err != nil {
			s.skip(no, "malformed json", err)
			return nil
		}
		if l.Content == nil {
			// Absent (or null) is an error; "" is an empty entry, as an
			// empty file or stdin is for memex add.
			s.skipf(no, "no content", `no content: field "content" is required ("" archives an empty entry)`)
			return nil
		}
		if l.Time != "" && parseTime(l.Time).IsZero() {
			s.skipf(no, "bad time", `field "time": %q is not an RFC 3339 time (like 2026-11-29T10:00:00Z)`, l.Time)
			return nil
		}
		session := firstNonEmpty(l.Session, defSession)
		kind := memex.Kind(firstNonEmpty(l.Kind, string(memex.KindNote)))
		e := memex.Entry{
			Project:      firstNonEmpty(s.opts.Project, l.Project),
			Session:      session,
			Agent:        firstNonEmpty(l.Agent, "jsonl"),
			Kind:         kind,
			Tool:         l.Tool,
			Input:        l.Input,
			Exit:         l.Exit,
			Created:      clk.at(parseTime(l.Time)),
			AgentSummary: strings.TrimSpace(l.Summary),
			Attrs:        l.Attrs,
		}
		if l.Key != "" {
			e.Aliases = append(e.Aliases, l.Key)
		}
		e.Aliases = append(e.Aliases, l.Aliases...)
		if kind == memex.KindTool {
			e.Aliases = append(e.Aliases, toolAlias(session, tools[session]))
			tools[session]++
		}
		s.emit(Record{Entry: e, Body: []byte(*l.Content), Key: "jsonl:" + session + ":" + shortHash(raw)})
		return nil
	})
	if err != nil {
		return err
	}
	s.resume, s.resumeLine = end, endLine
	s.st.SessionTools = tools
	return nil
}
