package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/summarize"
)

func TestDerefContextAndShowBudget(t *testing.T) {
	home := t.TempDir()
	var log strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&log, "ok   pkg/%d\t0.0%ds\n", i, i%10)
	}
	log.WriteString("--- FAIL: TestParseConfig (0.00s)\n    config_test.go:42: nil map assignment\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&log, "ok   tail/%d\n", i)
	}
	file := filepath.Join(t.TempDir(), "test.log")
	os.WriteFile(file, []byte(log.String()), 0o644)
	id := strings.TrimSpace(run(t, home, nil, "add", file, "--session", "s1", "--tool", "bash", "--input", "go test ./...", "--alias", "testlog").stdout)
	run(t, home, []byte("decided: fix the map init\n"), "add", "--session", "s1", "--kind", "note")

	r := run(t, home, nil, "deref", "testlog", "missing-ref", "--budget", "600", "--query", "nil map", "--json")
	if r.code != 0 {
		t.Fatalf("deref: %+v", r)
	}
	var res struct {
		Budget, Used int
		Items        []struct {
			ID       string
			Complete bool
			Content  string
			Omitted  []struct{ From, To, Tokens int }
		}
		Missing []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err, r.stdout)
	}
	if res.Used > 600 || len(res.Items) != 1 || res.Items[0].ID != id || res.Items[0].Complete ||
		!strings.Contains(res.Items[0].Content, "config_test.go:42: nil map assignment") ||
		len(res.Missing) != 1 || res.Missing[0] != "missing-ref" || len(res.Items[0].Omitted) == 0 {
		t.Fatalf("deref result %+v", res)
	}
	text := run(t, home, nil, "deref", id, "--budget", "600", "--query", "nil map")
	if n := summarize.CountString(text.stdout); n > 600 || !strings.Contains(text.stdout, "memex show "+id+" --lines ") {
		t.Fatalf("text deref: %d tokens:\n%s", n, text.stdout)
	}
	if r := run(t, home, nil, "deref", id, "--budget", "5"); r.code != 1 || !strings.Contains(r.stderr, "is too small to show 1 entry: need at least ") {
		t.Fatalf("tiny budget: %+v", r)
	}
	if r := run(t, home, nil, "deref", "nothing-here"); r.code != 1 {
		t.Fatalf("all missing: %+v", r)
	}

	s := run(t, home, nil, "show", "testlog", "--budget", "300")
	if s.code != 0 || summarize.CountString(s.stdout) > 300 || !strings.Contains(s.stdout, "[memex: lines ") {
		t.Fatalf("show --budget: %+v", s)
	}

	c := run(t, home, nil, "context", "--session", "s1", "--budget", "400", "--json")
	var cr struct {
		Used, Total int
		Entries     []struct{ ID, Summary string }
	}
	if err := json.Unmarshal([]byte(c.stdout), &cr); err != nil || cr.Total != 2 || len(cr.Entries) != 2 || cr.Entries[0].ID != id || cr.Used > 400 {
		t.Fatalf("context: %s (%v)", c.stdout, err)
	}
	if r := run(t, home, nil, "context", "--session", "nope"); r.code != 1 {
		t.Fatalf("context of unknown session: %+v", r)
	}
}

// TestDerefBinaryBase64: deref prints a binary entry as a note, and with
// --base64 as base64 lines of its bytes from the start within the budget,
// with the marker of the bytes cut; --json says "encoding": "base64".
func TestDerefBinaryBase64(t *testing.T) {
	home := t.TempDir()
	body := []byte("\xff\xd8\xff\xe0" + strings.Repeat("\x00\x10JFIF\x01\x02", 600))
	id := strings.TrimSpace(run(t, home, body, "add", "-").stdout)
	note := "[memex: binary content (4,804 bytes) not shown; memex show " + id + " > FILE saves it]\n"
	if r := run(t, home, nil, "deref", id, "--budget", "300"); r.code != 0 || !strings.HasSuffix(r.stdout, note) {
		t.Fatalf("deref binary: %+v; want the note %q", r, note)
	}
	r := run(t, home, nil, "deref", id, "--budget", "300", "--base64")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) < 3 || !strings.HasSuffix(lines[0], "base64 of 4,804 bytes") ||
		!strings.HasPrefix(lines[len(lines)-1], "[memex: base64 cut: bytes ") ||
		!strings.HasSuffix(lines[len(lines)-1], " of 4,804 not shown; memex show "+id+" > FILE saves all]") {
		t.Fatalf("deref --base64: %+v", r)
	}
	got, err := base64.StdEncoding.DecodeString(strings.Join(lines[1:len(lines)-1], ""))
	if err != nil || len(got) == 0 || !bytes.HasPrefix(body, got) {
		t.Fatalf("deref --base64: lines do not decode to the entry's start (%v): %q", err, r.stdout)
	}
	if n := summarize.CountString(r.stdout); n > 300 {
		t.Fatalf("deref --base64: %d tokens over the budget of 300", n)
	}
	r = run(t, home, nil, "deref", id, "--budget", "20000", "--base64", "--json")
	var res struct {
		Items []struct {
			Binary, Complete  bool
			Encoding, Content string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || len(res.Items) != 1 {
		t.Fatalf("deref --base64 --json: %+v (%v)", r, err)
	}
	it := res.Items[0]
	all, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(it.Content, "\n", ""))
	if !it.Binary || !it.Complete || it.Encoding != "base64" || err != nil || !bytes.Equal(all, body) {
		t.Fatalf("deref --base64 --json, budget 20000: %+v (%v)", it, err)
	}
}
