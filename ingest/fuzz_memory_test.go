package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzGitLogRecord feeds arbitrary git log records (header, then numstat
// and patch) through the parsing and rendering of a commit: no panic, and
// the patch is never kept past its bound.
func FuzzGitLogRecord(f *testing.F) {
	f.Add([]byte("commit 0123456789abcdef0123456789abcdef01234567\n0123456\n\nAda\nada@example.com\n2026-03-01T09:00:00Z\nAda\n2026-03-01T09:00:00Z\nsubject\n\nbody\n"),
		[]byte("\n5\t0\tauth/token.go\n-\t-\tlogo.png\n3\t1\tdocs/{a => b}/x.md\n\ndiff --git a/auth/token.go b/auth/token.go\n+x\n"))
	f.Add([]byte("commit zz\n"), []byte("x\ty\n"))
	f.Fuzz(func(t *testing.T, head, diff []byte) {
		c, ok := parseGitHeader(head)
		if !ok {
			return
		}
		const max = 64
		kept := diff[:min(len(diff), max)]
		rec := gitCommitRecord(gitRepo{project: "p", dir: "/r"}, c, kept, int64(len(diff)), max, nil)
		if rec.Key != "git:"+c.hash || !bytes.HasPrefix(rec.Body, []byte("commit "+c.hash+"\n")) {
			t.Fatalf("record %q: key %q", rec.Body, rec.Key)
		}
		if len(diff) > max && !bytes.Contains(rec.Body, []byte("[memex: patch cut at")) {
			t.Fatalf("a cut patch without its marker: %q", rec.Body)
		}
	})
}

// FuzzGitHub reads arbitrary export files: no panic, and every entry has
// its #N alias.
func FuzzGitHub(f *testing.F) {
	for _, p := range []string{"gh-issue-list.json", "gh-pr-list.json", "rest-issues.json", "rest-issue-comments.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "github", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"number":1,"labels":["a",{"name":"b"}],"comments":3,"pull_request":null}] {"number":2} 7`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "x.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		sink := newMemSink()
		if _, err := Run(context.Background(), sink, Options{Format: GitHub, Paths: []string{p}, Project: "github.com/o/r"}); err != nil {
			t.Fatalf("run: %v", err)
		}
		for _, e := range sink.entries {
			if len(e.Aliases) == 0 || !strings.HasPrefix(e.Aliases[len(e.Aliases)-1], "#") && !strings.HasPrefix(e.Aliases[0], "github:") {
				t.Fatalf("entry without its alias: %+v", e)
			}
		}
	})
}
