package hosts

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

const claudeSettings = `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "gofmt -w $FILE"}]}
    ]
  },
  "model": "opus"
}
`

const claudeJSON = `{"numStartups": 12, "mcpServers": {"other": {"command": "other-mcp"}}, "zeta": true}`

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestOrderedJSONRoundTrip(t *testing.T) {
	in := `{"b": 1, "a": [true, null, "x<&>", 2.50, {"z": {}, "y": []}], "c": "é"}`
	v, err := parseOrdered([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out := string(encodeOrdered(v))
	if strings.Index(out, `"b"`) > strings.Index(out, `"a"`) || !strings.Contains(out, `"x<&>"`) || !strings.Contains(out, "2.50") {
		t.Fatalf("round trip:\n%s", out)
	}
	var x, y any
	json.Unmarshal([]byte(in), &x)
	json.Unmarshal([]byte(out), &y)
	if !jsonEqual(x, y) {
		t.Fatalf("round trip changed the value:\n%s", out)
	}
}

// A configuration file that is not JSON is refused with where it goes
// wrong, as its author counts lines and columns, so that it can be fixed
// by hand.
func TestBrokenJSONSaysWhere(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\n  \"model\": \"opus\",\n  \"hooks\": {,\n}\n", "line 3, column 13: invalid character ',' looking for beginning of object key string"},
		{`{"theme": dark}`, "line 1, column 11: invalid character 'd' looking for beginning of value"},
		{"{\"a\":\n   dark}", "line 2, column 4: invalid character 'd'"},
		{"{\n  \"mcp\": {\n", "line 3, column 1: the JSON is cut short"},
		{`{"a":1} {}`, "line 1, column 9: invalid character '{' after top-level value"},
	} {
		_, err := jsonEdit(func(*object) error { return nil })([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), "not valid JSON at "+c.want) || !errors.Is(err, memex.ErrInvalid) {
			t.Errorf("%q: %v, want it to say %q", c.in, err, c.want)
		}
	}
}

func TestTomlEditKeepsUserNotify(t *testing.T) {
	orig := "notify = [\"my-notifier\"]\n[mcp_servers.memex]\ncommand = \"/opt/memex\"\n"
	got, err := tomlEdit(&Options{Bin: "memex"}, false)([]byte(orig))
	if err != nil || string(got) != orig {
		t.Fatalf("install over the user's own notify and server: %q %v", got, err)
	}
	back, err := tomlEdit(&Options{Bin: "memex"}, true)(got)
	if err != nil || string(back) != orig {
		t.Fatalf("uninstall removed the user's entries: %q %v", back, err)
	}
}

// FuzzInstallRoundTrip: on any JSON object, install then uninstall gives
// back the same value (nothing lost, nothing left), and a second install
// changes nothing. One difference is allowed: an empty "hooks" or
// "mcpServers" container (or an empty event list) the user had may be gone,
// as install cannot tell it from one it created; hosts read both alike.
func FuzzInstallRoundTrip(f *testing.F) {
	for _, s := range []string{claudeSettings, claudeJSON, `{}`, `{"hooks":{}}`, `{"hooks":{"Stop":[]}}`,
		`{"hooks":{"PostToolUse":[{"hooks":[]}]},"mcpServers":{"memex":{"command":"mine"}}}`, `{"a":[1,2,{"b":null}],"c":1e400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var orig map[string]any
		if json.Unmarshal([]byte(in), &orig) != nil || strings.Contains(in, "memex hook") || strings.Contains(in, `"memex"`) {
			return
		}
		for _, edit := range []func(*object, bool) error{
			func(r *object, rm bool) error {
				return editHooks(r, &Options{Bin: "memex"}, "claude-code", claudeHooks, false, rm)
			},
			func(r *object, rm bool) error {
				return editServer(r, "mcpServers", newObject("command", "memex", "args", []any{"mcp"}), rm)
			},
		} {
			installed, err := jsonEdit(func(r *object) error { return edit(r, false) })([]byte(in))
			if err != nil {
				if orig == nil || errors.Is(err, memex.ErrInvalid) {
					return // null is no object; a key of another shape is refused
				}
				t.Fatalf("install on %q: %v", in, err)
			}
			again, err := jsonEdit(func(r *object) error { return edit(r, false) })(installed)
			if err != nil || string(again) != string(installed) {
				t.Fatalf("second install changed %q", installed)
			}
			back, err := jsonEdit(func(r *object) error { return edit(r, true) })(installed)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if len(back) > 0 {
				if err := json.Unmarshal(back, &got); err != nil {
					t.Fatalf("uninstall wrote invalid JSON %q: %v", back, err)
				}
			}
			if len(orig) > 0 && !jsonEqual(pruneEmpty(orig), pruneEmpty(got)) {
				t.Fatalf("install+uninstall of %q gave %q", in, back)
			}
		}
	})
}

// pruneEmpty drops empty objects and lists inside the top-level "hooks"
// and "mcpServers" of v (and those keys when they end up empty).
func pruneEmpty(v map[string]any) map[string]any {
	out := map[string]any{}
	for k, x := range v {
		if k == "hooks" || k == "mcpServers" {
			if m, ok := x.(map[string]any); ok {
				inner := map[string]any{}
				for ik, iv := range m {
					if l, ok := iv.([]any); ok && len(l) == 0 {
						continue
					}
					if mm, ok := iv.(map[string]any); ok && len(mm) == 0 {
						continue
					}
					inner[ik] = iv
				}
				if len(inner) == 0 {
					continue
				}
				x = inner
			}
		}
		out[k] = x
	}
	return out
}

// TestGeminiCLIHome: Gemini CLI reads GEMINI_CLI_HOME as its home
// directory, so a user-scope install writes $GEMINI_CLI_HOME/.gemini;
// the project scope is the project's whatever it says.
func TestGeminiCLIHome(t *testing.T) {
	moved := t.TempDir()
	env := func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return moved
		}
		return ""
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		project bool
		want    string
	}{
		{false, filepath.Join(moved, ".gemini", "settings.json")},
		{true, filepath.Join(dir, ".gemini", "settings.json")},
	} {
		changes, err := Plan("gemini", Options{Bin: "/opt/memex", UserHome: t.TempDir(), Dir: dir, Project: tc.project, Getenv: env}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 1 || changes[0].Path != tc.want {
			t.Fatalf("project %v: changes %+v, want one to %s", tc.project, changes, tc.want)
		}
	}
}
