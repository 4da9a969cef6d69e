package hosts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/memex-archive/memex"
)

// Codex's config.toml is edited as text, never parsed and re-encoded:
// memex's parts sit between marker comments, and the rest of the file
// stays byte for byte.
const (
	tomlBegin       = "# memex: begin (added by memex install; memex uninstall removes it)"
	tomlEnd         = "# memex: end"
	tomlNotifyBegin = "# memex: begin notify (added by memex install; memex uninstall removes it)"
	tomlNotifyEnd   = "# memex: end notify"
)

// tomlString writes s as a TOML basic string (a JSON string is one).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// tomlArray writes words as a TOML array of basic strings.
func tomlArray(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = tomlString(w)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlEdit adds (or removes) memex's parts of a Codex config.toml, each
// between marker comments: the notify program (a top-level key, so first
// in the file, unless the user has a notify of their own) and the MCP
// server table (last). A block from an earlier install that runs another
// binary or home is rewritten; a [mcp_servers.memex] table the user wrote
// is left alone.
func tomlEdit(o *Options, remove bool) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		s := string(old)
		var err error
		if remove {
			if s, err = cutBlock(s, tomlNotifyBegin, tomlNotifyEnd); err != nil {
				return nil, err
			}
			if s, err = cutBlock(s, tomlBegin, tomlEnd); err != nil {
				return nil, err
			}
			return []byte(s), nil
		}
		mcp := o.argv("mcp")
		notify := "notify = " + tomlArray(o.argv("hook", "codex", "notify")) + "\n"
		server := "[mcp_servers.memex]\ncommand = " + tomlString(mcp[0]) + "\nargs = " + tomlArray(mcp[1:]) + "\n"
		if strings.Contains(s, tomlNotifyBegin) {
			if s, err = replaceBlock(s, tomlNotifyBegin, tomlNotifyEnd, notify); err != nil {
				return nil, err
			}
		} else if !hasTopLevelKey(s, "notify") {
			s = tomlNotifyBegin + "\n" + notify + tomlNotifyEnd + "\n" + s
		}
		if strings.Contains(s, tomlBegin) {
			if s, err = replaceBlock(s, tomlBegin, tomlEnd, server); err != nil {
				return nil, err
			}
		} else if !strings.Contains(s, "[mcp_servers.memex]") {
			if s != "" {
				if !strings.HasSuffix(s, "\n") {
					s += "\n"
				}
				s += "\n"
			}
			s += tomlBegin + "\n" + server + tomlEnd + "\n"
		}
		return []byte(s), nil
	}
}

// block finds the lines from begin to end: the offsets of the content
// between the marker lines, and of the end marker's line end.
func block(s, begin, end string) (i, from, to, stop int, ok bool, err error) {
	i = strings.Index(s, begin)
	if i < 0 {
		return 0, 0, 0, 0, false, nil
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		return 0, 0, 0, 0, false, fmt.Errorf("memex block %q has no end marker: %w", begin, memex.ErrInvalid)
	}
	from = i + len(begin)
	if from < len(s) && s[from] == '\n' {
		from++
	}
	to = i + j
	stop = to + len(end)
	if stop < len(s) && s[stop] == '\n' {
		stop++
	}
	return i, from, to, stop, true, nil
}

// replaceBlock sets the content between begin and end to content.
func replaceBlock(s, begin, end, content string) (string, error) {
	_, from, to, _, ok, err := block(s, begin, end)
	if err != nil || !ok {
		return s, err
	}
	return s[:from] + content + s[to:], nil
}

// cutBlock removes the lines from begin to end (markers included) and the
// blank line install put before a trailing block.
func cutBlock(s, begin, end string) (string, error) {
	start, _, _, stop, ok, err := block(s, begin, end)
	if err != nil || !ok {
		return s, err
	}
	if start > 0 && strings.HasSuffix(s[:start], "\n\n") {
		start--
	}
	return s[:start] + s[stop:], nil
}

// blockText is the content between begin and end, "" when s has no such
// block.
func blockText(s, begin, end string) string {
	_, from, to, _, ok, _ := block(s, begin, end)
	if !ok {
		return ""
	}
	return s[from:to]
}

// hasTopLevelKey reports whether a TOML document sets key before its first
// table.
func hasTopLevelKey(s, key string) bool {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			return false
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}
