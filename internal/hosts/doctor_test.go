package hosts

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheck: an install whose binary is gone and whose hooks write to
// another store is found, recorded, and reported with both problems and
// the install command for the home checked; with nothing installed, Check
// finds nothing and no problem.
func TestCheck(t *testing.T) {
	user, store := t.TempDir(), filepath.Join(t.TempDir(), "my memex")
	t.Setenv("HOME", user)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(k, "")
	}
	t.Chdir(user)
	o := CheckOptions{Home: store, InstallHome: store, DefaultHome: filepath.Join(user, ".memex")}
	if found, problems := Check(context.Background(), o); len(found) != 0 || len(problems) != 0 {
		t.Fatalf("nothing installed: %+v %+v", found, problems)
	}

	bin, other := filepath.Join(t.TempDir(), "gone", "memex"), filepath.Join(t.TempDir(), "other")
	changes, err := Plan("claude-code", Options{Bin: bin, Home: other, Manifest: filepath.Join(store, "installs.json")}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Changed() {
			if _, err := Apply(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	found, problems := Check(context.Background(), o)
	if len(found) != 1 {
		t.Fatalf("found %+v", found)
	}
	h := found[0]
	if h.Host != "claude-code" || !h.Recorded || len(h.Missing) != 0 || h.Server == nil ||
		len(h.Binaries) != 1 || h.Binaries[0].Runs || h.Binaries[0].Error != "no such file" ||
		!slices.Equal(h.WritesTo, []string{other}) {
		t.Fatalf("health %+v", h)
	}
	fix := "memex --home '" + store + "' install claude-code"
	var bad, elsewhere bool
	for _, p := range problems {
		if p.Where != "claude-code" || !strings.HasPrefix(p.Fix, fix) {
			t.Errorf("problem %+v, want fix starting %q", p, fix)
		}
		bad = bad || strings.Contains(p.Problem, "does not run as memex (no such file)")
		elsewhere = elsewhere || strings.Contains(p.Problem, "write to the store in "+other)
	}
	if len(problems) != 2 || !bad || !elsewhere {
		t.Fatalf("problems %+v", problems)
	}
}

func TestInstallCommand(t *testing.T) {
	for _, c := range []struct{ home, scope, want string }{
		{"", "user", "memex install codex"},
		{"/data/m", "project", "memex --home /data/m install codex --scope project"},
		{"/a b", "user", "memex --home '/a b' install codex"},
	} {
		if got := InstallCommand(c.home, "codex", c.scope); got != c.want {
			t.Errorf("InstallCommand(%q, codex, %q) = %q, want %q", c.home, c.scope, got, c.want)
		}
	}
}

// TestCheckOpenCodePlugin: OpenCode's hooks are the plugin install
// writes. Check finds it with the commands it runs, and a plugin taken
// away is a problem (nothing is captured), where it used to pass as
// "0 of 0 hooks" without one.
func TestCheckOpenCodePlugin(t *testing.T) {
	user, store := t.TempDir(), t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Chdir(user)
	bin := filepath.Join(t.TempDir(), "memex")
	changes, err := Plan("opencode", Options{Bin: bin, Home: store}, false)
	if err != nil {
		t.Fatal(err)
	}
	var plugin string
	for _, c := range changes {
		if _, err := Apply(c); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(c.Path, ".js") {
			plugin = c.Path
		}
	}
	o := CheckOptions{Home: store, InstallHome: store, DefaultHome: filepath.Join(user, ".memex")}
	found, _ := Check(context.Background(), o)
	if len(found) != 1 || found[0].Plugin == nil || found[0].Plugin.Bin != bin || found[0].Plugin.Home != store ||
		found[0].PluginTool == nil || len(found[0].Missing) != 0 {
		t.Fatalf("installed: %+v", found)
	}
	if err := os.Remove(plugin); err != nil {
		t.Fatal(err)
	}
	found, problems := Check(context.Background(), o)
	if len(found) != 1 || found[0].Plugin != nil || !slices.Equal(found[0].Missing, []string{"plugin"}) {
		t.Fatalf("plugin gone: %+v", found)
	}
	if !slices.ContainsFunc(problems, func(p Problem) bool { return strings.Contains(p.Problem, "nothing is captured") }) {
		t.Fatalf("plugin gone: problems %+v", problems)
	}
}
