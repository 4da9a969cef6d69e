package hosts

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
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

// Install settles the binary before it plans (a binary that does not run
// as memex is refused as it is), writes or with dryRun prints, and names
// the verb and host in other errors.
func TestInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands in for memex")
	}
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "memex")
	os.WriteFile(bin, []byte("#!/bin/sh\necho memex 0.1.0\n"), 0o755)
	dir := t.TempDir()
	o := Options{Bin: bin, UserHome: t.TempDir(), Dir: dir, Project: true, Manifest: filepath.Join(t.TempDir(), ManifestFile)}
	settings := filepath.Join(dir, ".gemini", "settings.json")
	var out strings.Builder
	if err := Install(ctx, &out, "gemini", o, false, true); err != nil || !strings.Contains(out.String(), "+++ "+settings+" (after memex install)") {
		t.Fatalf("dry run: %v %q", err, out.String())
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote %s: %v", settings, err)
	}
	out.Reset()
	if err := Install(ctx, &out, "gemini", o, false, false); err != nil || out.String() != settings+": created\n" {
		t.Fatalf("install: %v %q", err, out.String())
	}
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), bin) {
		t.Errorf("%s does not run %s:\n%s", settings, bin, b)
	}

	bad := o
	bad.Bin = "memex"
	if err := Install(ctx, io.Discard, "gemini", bad, false, false); !errors.Is(err, memex.ErrInvalid) || !strings.HasPrefix(err.Error(), "--bin memex is not an absolute path") {
		t.Errorf("relative --bin: %v", err)
	}
	if err := Install(ctx, io.Discard, "nohost", o, true, false); !errors.Is(err, memex.ErrInvalid) || !strings.HasPrefix(err.Error(), `unknown host "nohost"`) {
		t.Errorf("unknown host: %v", err)
	}
	bad = o
	bad.Manifest = t.TempDir() // a directory: the record cannot be read
	if err := Install(ctx, io.Discard, "gemini", bad, true, false); err == nil || errors.Is(err, memex.ErrInvalid) || !strings.HasPrefix(err.Error(), "uninstall gemini: ") {
		t.Errorf("unreadable record: %v", err)
	}
	out.Reset()
	if err := Install(ctx, &out, "gemini", o, true, false); err != nil || out.String() != settings+": removed (memex created it)\n" {
		t.Errorf("uninstall: %v %q", err, out.String())
	}
}
