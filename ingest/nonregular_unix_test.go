//go:build unix

package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNonRegularFilesAreRefused: a FIFO, a device and a FIFO found while
// walking a directory are refused at once, each with a line saying why,
// instead of blocking the import (a FIFO) or reading without end
// (/dev/zero: /dev/null stands in for it here, as a device that an
// unbounded read of would not exhaust the test machine if the check went).
func TestNonRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "transcript.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	walked := filepath.Join(t.TempDir(), "projects", "-p")
	os.MkdirAll(walked, 0o755)
	if err := syscall.Mkfifo(filepath.Join(walked, "s.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f     Format
		paths []string
		want  int // file errors
	}{
		{JSONL, []string{fifo}, 1},
		{Auto, []string{fifo}, 1},
		{ClaudeCode, []string{"/dev/null"}, 1},
		{ClaudeCode, []string{filepath.Dir(walked)}, 1}, // the directory then holds no transcript
	} {
		done := make(chan Report, 1)
		go func() {
			rep, _ := run(t, newMemSink(), Options{Format: c.f, Paths: c.paths})
			done <- rep
		}()
		var rep Report
		select {
		case rep = <-done:
		case <-time.After(10 * time.Second):
			// The import blocked opening the FIFO: give it a writer so
			// that it ends, and fail.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			<-done
			t.Fatalf("%s %v: ingest blocked on a FIFO", c.f, c.paths)
		}
		if len(rep.FileErrors) != c.want || rep.Files != 0 {
			t.Errorf("%s %v: %+v", c.f, c.paths, rep)
		}
		if c.f != ClaudeCode || c.paths[0] == "/dev/null" {
			if len(rep.FileErrors) > 0 && !strings.Contains(rep.FileErrors[0], "not a regular file") {
				t.Errorf("%s %v: %q", c.f, c.paths, rep.FileErrors)
			}
		}
	}
}

// TestSymlinkedDirectoryIsWalked: a path that is a symbolic link to a
// directory (a host's data moved to another disk and linked back, named
// or as a default location) is read like the directory, under the path
// as given; it did not yield "no trajectories found".
func TestSymlinkedDirectoryIsWalked(t *testing.T) {
	target, err := filepath.Abs("testdata/swe")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "runs")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	want, _ := run(t, newMemSink(), Options{Format: SWEAgent, Paths: []string{target}})
	for _, named := range []bool{true, false} {
		targets, errs := discover(SWEAgent, []string{link}, named)
		if len(errs) != 0 || len(targets) != want.Files || want.Files == 0 {
			t.Fatalf("named %v: %d files, errors %q; want %d", named, len(targets), errs, want.Files)
		}
		for _, tg := range targets {
			if !strings.HasPrefix(tg.path, link+string(filepath.Separator)) {
				t.Errorf("named %v: %s is not under the path as given, %s", named, tg.path, link)
			}
		}
	}
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: SWEAgent, Paths: []string{link}})
	if rep.Files != want.Files || rep.Added != want.Added || len(warns) != 0 {
		t.Fatalf("through the link: %+v %q; want %+v", rep, warns, want)
	}
}
