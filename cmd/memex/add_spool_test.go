package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An add refused by a busy store (an import holding it past
// MEMEX_LOCK_TIMEOUT) must not lose what it read from a pipe: it is
// spooled, redacted, its ID printed, and the next memex process that
// writes archives it under that ID, with its flags' metadata.
func TestAddOnABusyStoreIsSpooled(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("first"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	release := holdStore(t, home)
	t.Setenv("MEMEX_LOCK_TIMEOUT", "10ms")
	body := "decided: keep the retry loop\nkey=" + testAWSKey + "\n"
	r := run(t, home, []byte(body), "add", "--kind", "note", "--alias", "retry-decision", "--json", "-")
	release()
	var got struct {
		ID      string
		Bytes   int64
		Spooled bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || !got.Spooled || len(got.ID) != 26 || got.Bytes != int64(len(body)) {
		t.Fatalf("add on a busy store: %+v (%v)", r, err)
	}
	if !strings.Contains(r.stderr, "spooled as "+got.ID) {
		t.Errorf("stderr %q", r.stderr)
	}
	outs, _ := filepath.Glob(filepath.Join(home, "spool", "run-*"))
	if len(outs) != 2 {
		t.Fatalf("spool holds %v, want the body and its entry", outs)
	}
	for _, p := range outs {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), testAWSKey) {
			t.Fatalf("%s holds the secret in clear", p)
		}
	}
	if r := run(t, home, []byte("second"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "spool", "*")); len(left) != 0 {
		t.Fatalf("left after the next write: %v", left)
	}
	for _, ref := range []string{got.ID, "retry-decision"} {
		show := run(t, home, nil, "show", ref)
		if show.code != 0 || !strings.HasPrefix(show.stdout, "decided: keep the retry loop\nkey=") || strings.Contains(show.stdout, testAWSKey) {
			t.Fatalf("show %s after the drain: %+v", ref, show)
		}
	}
}
