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

// tomlEdit adds (or removes) memex's parts of a Codex config.toml, each
// between marker comments: the notify program (a top-level key, so first
// in the file, unless the user has a notify of their own) and the MCP
// server table (last). A [mcp_servers.memex] table the user wrote is left
// alone.
func tomlEdit(bin string, remove bool) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		s := string(old)
		if remove {
			var err error
			if s, err = cutBlock(s, tomlNotifyBegin, tomlNotifyEnd); err != nil {
				return nil, err
			}
			if s, err = cutBlock(s, tomlBegin, tomlEnd); err != nil {
				return nil, err
			}
			return []byte(s), nil
		}
		q, _ := json.Marshal(bin)
		if !strings.Contains(s, tomlNotifyBegin) && !hasTopLevelKey(s, "notify") {
			s = tomlNotifyBegin + "\nnotify = [" + string(q) + ", \"hook\", \"codex\", \"notify\"]\n" + tomlNotifyEnd + "\n" + s
		}
		if !strings.Contains(s, tomlBegin) && !strings.Contains(s, "[mcp_servers.memex]") {
			if s != "" {
				if !strings.HasSuffix(s, "\n") {
					s += "\n"
				}
				s += "\n"
			}
			s += tomlBegin + "\n[mcp_servers.memex]\ncommand = " + string(q) + "\nargs = [\"mcp\"]\n" + tomlEnd + "\n"
		}
		return []byte(s), nil
	}
}

// cutBlock removes the lines from begin to end (markers included) and the
// blank line install put before a trailing block.
func cutBlock(s, begin, end string) (string, error) {
	i := strings.Index(s, begin)
	if i < 0 {
		return s, nil
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		return "", fmt.Errorf("memex block %q has no end marker: %w", begin, memex.ErrInvalid)
	}
	stop := i + j + len(end)
	if stop < len(s) && s[stop] == '\n' {
		stop++
	}
	start := i
	if start > 0 && strings.HasSuffix(s[:start], "\n\n") {
		start--
	}
	return s[:start] + s[stop:], nil
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
