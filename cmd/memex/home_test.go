package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mistyped --home or MEMEX_HOME is said by every reading command, with
// exit 1, and leaves nothing behind.
func TestReadingAHomeWithoutStore(t *testing.T) {
	for _, args := range [][]string{
		{"show", "01JD8X3N6Q4W0G2Y7T5R9KZC1M"}, {"search", "nil", "map"}, {"sessions"}, {"context", "--session", "s"},
		{"replay", "s"}, {"stats"}, {"stats", "--json"}, {"deref", "x"}, {"verify"},
	} {
		dir := filepath.Join(t.TempDir(), "typo")
		r := run(t, dir, nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "no memex store in "+dir) {
			t.Errorf("%v: %+v; want exit 1 saying there is no store in %s", args, r, dir)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%v created %s", args, dir)
		}
	}
}

// verify reports a store other users can read, and the spool's leftovers;
// the next write tightens the modes.
func TestVerifyReportsModesAndSpool(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, dir, []byte("x"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	if r := run(t, dir, nil, "verify"); r.code != 0 {
		t.Fatalf("verify of a fresh home: %+v", r)
	}
	os.Chmod(filepath.Join(dir, "store"), 0o755)
	os.MkdirAll(filepath.Join(dir, "spool"), 0o700)
	os.WriteFile(filepath.Join(dir, "spool", "01JD8X3N6Q4W0G2Y7T5R9KZC1M.json"), []byte("{"), 0o600)
	r := run(t, dir, nil, "verify", "--json")
	var got struct {
		Files []struct{ Path, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 1 || len(got.Files) != 2 {
		t.Fatalf("verify --json: %+v (%v)", r, err)
	}
	if !strings.Contains(got.Files[0].Message, "mode 0755") || !strings.Contains(got.Files[1].Message, "not archived yet") {
		t.Errorf("problems: %+v", got.Files)
	}
	if r := run(t, dir, []byte("y"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	fi, _ := os.Stat(filepath.Join(dir, "store"))
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("store mode after a write: %o", fi.Mode().Perm())
	}
	r = run(t, dir, nil, "verify")
	if r.code != 1 || !strings.Contains(r.stdout, ".bad: spooled and unreadable") {
		t.Errorf("verify after the drain: %+v", r)
	}
}
