package hosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write says what became of each file, and with dryRun writes nothing:
// an install creates the file, a second is nothing to change, an edit
// by hand is updated with a backup, and an uninstall of a file install
// created removes it.
func TestWriteReports(t *testing.T) {
	user, dir := t.TempDir(), t.TempDir()
	o := Options{Bin: "/opt/memex", UserHome: user, Dir: dir, Project: true, Manifest: filepath.Join(t.TempDir(), "installs.json")}
	step := func(remove, dryRun bool) string {
		t.Helper()
		changes, err := Plan("gemini", o, remove)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := Write(&out, changes, "install", dryRun); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	settings := filepath.Join(dir, ".gemini", "settings.json")
	if got := step(false, true); !strings.Contains(got, "+++ "+settings+" (after memex install)") {
		t.Fatalf("dry run: %q", got)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote %s: %v", settings, err)
	}
	for _, c := range []struct {
		remove bool
		want   string
	}{
		{false, settings + ": created\n"},
		{false, settings + ": nothing to change\n"},
	} {
		if got := step(c.remove, false); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(strings.Replace(string(b), "{", `{"theme": "dark",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := step(true, false); !strings.HasPrefix(got, settings+": updated (backup in "+settings+".memex-backup-") {
		t.Errorf("uninstall after an edit: %q", got)
	}
	o.Manifest = filepath.Join(t.TempDir(), "installs.json")
	other := filepath.Join(t.TempDir(), "p")
	o.Dir = other
	step(false, false)
	if got, want := step(true, false), filepath.Join(other, ".gemini", "settings.json")+": removed (memex created it)\n"; got != want {
		t.Errorf("uninstall of a created file: %q, want %q", got, want)
	}
}
