package hosts

import (
	"path/filepath"
	"testing"
)

// TestInspectReadsWhatInstallWrote: for every host, Inspect finds every
// handler, the server and (Codex) the notify program install wrote, with
// the binary and home they run; after uninstall it finds nothing.
func TestInspectReadsWhatInstallWrote(t *testing.T) {
	for _, host := range Names {
		user := t.TempDir()
		o := Options{Bin: "/opt/memex bin/memex", Home: "/data/memex", UserHome: user, Dir: t.TempDir(),
			Manifest: filepath.Join(t.TempDir(), "installs.json"), Getenv: func(string) string { return "" }}
		apply := func(remove bool) {
			changes, err := Plan(host, o, remove)
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
		}
		apply(false)
		in, err := Inspect(host, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Missing) != 0 || len(in.Hooks) != len(Specs(host)) || in.Server == nil || len(in.Errors) != 0 {
			t.Fatalf("%s: %+v", host, in)
		}
		for _, c := range in.Commands() {
			if c.Bin != o.Bin || c.Home != o.Home {
				t.Errorf("%s: command %+v, want bin %q home %q", host, c, o.Bin, o.Home)
			}
		}
		if host == "codex" && in.Notify == nil {
			t.Errorf("codex: notify not found")
		}
		apply(true)
		if in, _ := Inspect(host, o); in.Present() {
			t.Errorf("%s after uninstall: %+v", host, in)
		}
	}
}
