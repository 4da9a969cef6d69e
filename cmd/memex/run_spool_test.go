package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A memex run refused by a busy store leaves its output in the spool,
// redacted (issue 13.3), and the next memex process that writes archives
// it under the ID the run printed; verify reports it until then.
func TestRunSpoolIsRedactedAndDrained(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("first"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	release := holdStore(t, home)
	t.Setenv("MEMEX_LOCK_TIMEOUT", "10ms")
	r := run(t, home, nil, "run", "--quiet", "--", "sh", "-c", "echo key="+testAWSKey+"; echo done; exit 3")
	release()
	if r.code != 3 || !strings.Contains(r.stderr, "could not archive") {
		t.Fatalf("run on a busy store: %+v", r)
	}
	outs, _ := filepath.Glob(filepath.Join(home, "spool", "run-*"))
	if len(outs) != 2 {
		t.Fatalf("spool holds %v, want the output and its entry", outs)
	}
	for _, p := range outs {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), testAWSKey) {
			t.Fatalf("%s holds the secret in clear: %q", p, b)
		}
		if strings.HasSuffix(p, ".out") && !strings.Contains(string(b), "[REDACTED:") {
			t.Errorf("%s: %q", p, b)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %o", p, fi.Mode().Perm())
		}
	}
	if v := run(t, home, nil, "verify"); v.code != 1 || !strings.Contains(v.stdout, "not archived yet") {
		t.Fatalf("verify with a spooled run: %+v", v)
	}
	if r := run(t, home, []byte("second"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "spool", "*")); len(left) != 0 {
		t.Fatalf("left after the next write: %v", left)
	}
	if v := run(t, home, nil, "verify"); v.code != 0 {
		t.Fatalf("verify after the drain: %+v", v)
	}
	s := run(t, home, nil, "search", "done", "--json")
	id := regexp.MustCompile(`"id":\s*"([0-9A-Z]{26})"`).FindStringSubmatch(s.stdout)
	if id == nil {
		t.Fatalf("the drained run is not searchable: %+v", s)
	}
	show := run(t, home, nil, "show", id[1], "--json")
	if !strings.Contains(show.stdout, `"exit": 3`) || !strings.Contains(show.stdout, "done") || strings.Contains(show.stdout, testAWSKey) {
		t.Fatalf("the drained run: %s", show.stdout)
	}
	if n := redactedOf(t, home, id[1]); n != 2 {
		t.Errorf("the drained run counts %d replacements, want 2 (its input and its output)", n)
	}
}

// --no-redact keeps a run's output as it is, in the spool too.
func TestRunNoRedactSpoolsAsIs(t *testing.T) {
	home := t.TempDir()
	r := run(t, home, nil, "run", "--quiet", "--no-redact", "--json", "--", "echo", "key="+testAWSKey)
	if r.code != 0 {
		t.Fatal(r)
	}
	id := regexp.MustCompile(`"id":\s*"([0-9A-Z]{26})"`).FindStringSubmatch(r.stdout)
	if show := run(t, home, nil, "show", id[1]); !strings.Contains(show.stdout, testAWSKey) {
		t.Fatalf("--no-redact: %+v", show)
	}
}

// add --no-redact and run --no-redact are honoured through a running
// server too (issue 13.11: the server redacted them anyway).
func TestNoRedactThroughTheServer(t *testing.T) {
	home := t.TempDir()
	startServe(t, home)
	r := run(t, home, []byte("key="+testAWSKey+"\n"), "add", "--no-redact", "--alias", "kept", "-")
	if r.code != 0 {
		t.Fatal(r)
	}
	if show := run(t, home, nil, "show", "kept"); !strings.Contains(show.stdout, testAWSKey) {
		t.Fatalf("add --no-redact through the server: %+v", show)
	}
	r = run(t, home, nil, "run", "--quiet", "--no-redact", "--alias", "ran", "--", "echo", "key="+testAWSKey)
	if r.code != 0 {
		t.Fatal(r)
	}
	if show := run(t, home, nil, "show", "ran"); !strings.Contains(show.stdout, testAWSKey) {
		t.Fatalf("run --no-redact through the server: %+v", show)
	}
	if r := run(t, home, []byte("key="+testAWSKey+"\n"), "add", "--alias", "gone", "-"); r.code != 0 {
		t.Fatal(r)
	}
	if show := run(t, home, nil, "show", "gone"); strings.Contains(show.stdout, testAWSKey) {
		t.Fatalf("add through the server kept the secret: %+v", show)
	}
}
