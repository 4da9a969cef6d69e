package homedir_test

import (
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex/internal/homedir"
)

// TestResolve: --home wins, then $MEMEX_HOME, then Default, ~/.memex;
// every answer is absolute.
func TestResolve(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("MEMEX_HOME", "")
	def, err := homedir.Default()
	if err != nil || def != filepath.Join(user, ".memex") {
		t.Fatalf("Default() = %q, %v; want %q", def, err, filepath.Join(user, ".memex"))
	}
	if got, err := homedir.Resolve(""); err != nil || got != def {
		t.Fatalf("Resolve(\"\") = %q, %v; want the default %q", got, err, def)
	}
	env := t.TempDir()
	t.Setenv("MEMEX_HOME", env)
	if got, _ := homedir.Resolve(""); got != env {
		t.Fatalf("Resolve(\"\") with MEMEX_HOME = %q, want %q", got, env)
	}
	t.Chdir(user)
	if got, _ := homedir.Resolve("rel"); got != filepath.Join(user, "rel") {
		t.Fatalf("Resolve(\"rel\") = %q, want it absolute under %q", got, user)
	}
}

// Flag is "" for the default home (written as it is or not), so that an
// installed command keeps following it, and any other home as it is.
func TestFlag(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	def := filepath.Join(user, ".memex")
	for _, c := range []struct{ dir, want string }{
		{def, ""},
		{def + "/", ""},
		{filepath.Join(user, "other"), filepath.Join(user, "other")},
	} {
		if got := homedir.Flag(c.dir); got != c.want {
			t.Errorf("Flag(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}
