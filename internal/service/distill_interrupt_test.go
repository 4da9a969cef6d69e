package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/memory"
)

// writeLessonSessions writes n JSONL files, one session each, in which a
// test fails, a file is edited and the test passes: one lesson each.
func writeLessonSessions(t *testing.T, n int) (string, []memex.SessionRef) {
	t.Helper()
	dir := t.TempDir()
	var refs []memex.SessionRef
	for i := 1; i <= n; i++ {
		s := fmt.Sprintf("s%d", i)
		lines := fmt.Sprintf(`{"project":"p","session":"%[1]s","agent":"cli","kind":"tool","tool":"bash","input":"go test ./auth%[2]d","content":"--- FAIL: TestRefresh%[2]d (0.00s)\n    token_test.go:12: token expired check\nFAIL\n","exit":1,"time":"2026-11-29T10:00:%02[2]dZ","key":"%[1]s:1"}
{"project":"p","session":"%[1]s","agent":"cli","kind":"tool","tool":"Edit","input":"{\"file_path\":\"auth%[2]d/token.go\",\"old_string\":\"a\",\"new_string\":\"b\"}","content":"edited","time":"2026-11-29T10:01:%02[2]dZ","key":"%[1]s:2"}
{"project":"p","session":"%[1]s","agent":"cli","kind":"tool","tool":"bash","input":"go test ./auth%[2]d","content":"ok  \tauth%[2]d\t0.01s\n","exit":0,"time":"2026-11-29T10:02:%02[2]dZ","key":"%[1]s:3"}
`, s, i)
		if err := os.WriteFile(filepath.Join(dir, s+".jsonl"), []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, memex.SessionRef{Project: "p", Session: s, Agent: "cli"})
	}
	return dir, refs
}

// TestInterruptedImportDistilsNextTime: an import stopped after some of
// its files (Ctrl-C, a kill: here its context, after the second file)
// has archived their entries and recorded the files as read, but not yet
// distilled their sessions. The next import, which finds those files
// unchanged, must distil them all the same: the store ends with every
// lesson an uninterrupted import leaves.
func TestInterruptedImportDistilsNextTime(t *testing.T) {
	const sessions = 4
	in, refs := writeLessonSessions(t, sessions)
	dir := t.TempDir()
	open := func() *archive.Store {
		s, err := archive.Open(dir, &archive.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	files := 0
	s := open()
	rep, _, err := ingestThenDistill(ctx, s, ingest.Options{Format: ingest.JSONL, Paths: []string{in}, Policy: Policy,
		Progress: func(p ingest.Progress) {
			if p.Files > files {
				if files = p.Files; files == 2 {
					cancel()
				}
			}
		}}, nil, nil)
	if !errors.Is(err, context.Canceled) || rep.Added == 0 || rep.Added == 3*sessions {
		t.Fatalf("interrupted import: %d added, %v", rep.Added, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open()
	defer s.Close()
	rep, _, err = ingestThenDistill(context.Background(), s, ingest.Options{Format: ingest.JSONL, Paths: []string{in}, Policy: Policy}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged == 0 {
		t.Fatalf("the second import read every file again (%+v): the case is not tested", rep)
	}
	again, err := memory.Update(context.Background(), s, refs, memory.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Lessons != sessions {
		t.Fatalf("after the second import, distilling every session again: %+v; want %d lessons, none added", again, sessions)
	}
}

// TestInterruptedIngestSaysWhatIsKept: an import stopped between files
// (Ctrl-C: its context) fails as cancelled, saying how many files and
// entries it kept and that running it again goes on from there.
func TestInterruptedIngestSaysWhatIsKept(t *testing.T) {
	in, _ := writeLessonSessions(t, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := home.Open(ctx, t.TempDir(), home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	files := int64(0)
	_, err = importer{h}.Ingest(ctx, api.IngestRequest{Format: "jsonl", Paths: []string{in}, Progress: func(done, total int64) {
		if done > 0 {
			if files++; files == 2 {
				cancel()
			}
		}
	}})
	want := "ingest: interrupted after 2 files: the 6 entries archived are kept; the same command again goes on from there"
	if !errors.Is(err, context.Canceled) || err == nil || err.Error() != want {
		t.Fatalf("interrupted import: %v, want %q", err, want)
	}
}

// TestConcurrentImportLeavesAnotherImportsMarks: an import that starts
// while another runs in the same process (two POST /v1/ingest) must not
// take the other's marks for left-overs: the other may add to those
// sessions after this one distilled them, and then stop before it
// distils. Here the first import's session spans its two files; the
// second import runs between them; the first is stopped after its second
// file. The next import must still distil that session whole.
func TestConcurrentImportLeavesAnotherImportsMarks(t *testing.T) {
	dir, refs := writeLessonSessions(t, 2)
	// Split s1 in two files: the failure, then the fix and the pass.
	b, err := os.ReadFile(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	one, two := filepath.Join(t.TempDir(), "s1a.jsonl"), filepath.Join(t.TempDir(), "s1b.jsonl")
	if err := os.WriteFile(one, []byte(lines[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(two, []byte(lines[1]+lines[2]), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "s2.jsonl")

	s, err := archive.Open(t.TempDir(), &archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	files := 0
	_, _, err = ingestThenDistill(ctx, s, ingest.Options{Format: ingest.JSONL, Paths: []string{one, two}, Policy: Policy,
		Progress: func(p ingest.Progress) {
			if p.Files <= files {
				return
			}
			switch files = p.Files; files {
			case 1:
				if _, _, err := ingestThenDistill(context.Background(), s, ingest.Options{Format: ingest.JSONL, Paths: []string{other}, Policy: Policy}, nil, nil); err != nil {
					t.Fatal(err)
				}
			case 2:
				cancel()
			}
		}}, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the first import: %v", err)
	}
	if _, _, err := ingestThenDistill(context.Background(), s, ingest.Options{Format: ingest.JSONL, Paths: []string{one, two, other}, Policy: Policy}, nil, nil); err != nil {
		t.Fatal(err)
	}
	again, err := memory.Update(context.Background(), s, refs, memory.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Lessons != 2 {
		t.Fatalf("after the next import, distilling both sessions again: %+v; want 2 lessons, none added", again)
	}
}
