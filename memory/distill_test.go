package memory_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/memory"
)

// live is a session being written to the archive, one entry a second.
type live struct {
	t   *testing.T
	s   *archive.Store
	at  time.Time
	ref memex.SessionRef
}

func newLive(t *testing.T, s *archive.Store, name string) *live {
	return &live{t: t, s: s, at: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		ref: memex.SessionRef{Session: name, Project: project, Agent: "claude-code"}}
}

func (l *live) add(e memex.Entry) memex.ID {
	l.t.Helper()
	l.at = l.at.Add(time.Second)
	e.Project, e.Session, e.Agent, e.Created = l.ref.Project, l.ref.Session, l.ref.Agent, l.at
	if e.Kind == "" {
		e.Kind = memex.KindTool
	}
	got, err := l.s.Add(context.Background(), e, strings.NewReader(e.Summary))
	if err != nil {
		l.t.Fatal(err)
	}
	return got.ID
}

func (l *live) run(cmd string, exit int, out string) memex.ID {
	x := exit
	return l.add(memex.Entry{Tool: "Bash", Input: cmd, Exit: &x, Summary: "Bash: " + cmd + " · exit " + itoa(exit) + " · " + out})
}

func (l *live) edit(path string) memex.ID {
	return l.add(memex.Entry{Tool: "Edit", Input: `{"file_path":"` + path + `"}`, Summary: "Edit: " + path + " · edited " + path + ": +1 -1 lines"})
}

func itoa(n int) string { return strconv.Itoa(n) }

// lessons returns the lesson entries of the session.
func (l *live) lessons() []memex.Entry {
	l.t.Helper()
	var out []memex.Entry
	err := l.s.Session(context.Background(), l.ref, func(e memex.Entry) error {
		if e.Kind == memex.KindLesson {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		l.t.Fatal(err)
	}
	return out
}

func openStore(t *testing.T) *archive.Store {
	t.Helper()
	s, err := archive.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestUpdateKeepsLessonsUpToDate(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	l := newLive(t, s, "s1")
	fail := l.run("go test ./auth", 1, "FAIL TestRefresh: token expired")
	fix := l.edit("auth/token.go")
	l.run("go test ./auth", 1, "FAIL TestRefresh: token expired")
	l.run("git status", 0, "clean")

	rep, err := memory.Update(ctx, s, []memex.SessionRef{l.ref}, memory.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 1 || rep.Added != 1 || rep.Lessons != 1 || rep.Runs != 2 {
		t.Fatalf("first update %+v", rep)
	}
	ls := l.lessons()
	if len(ls) != 1 || ls[0].Attrs["status"] != memory.StatusAbandoned || ls[0].Input != "go test ./auth" ||
		!strings.HasPrefix(ls[0].Attrs["cites"], fail.String()+","+fix.String()+",") {
		t.Fatalf("lesson %+v", ls)
	}
	first := ls[0].ID
	body, err := s.ReadAll(ctx, first)
	if err != nil || !strings.Contains(string(body), fix.String()+"  edited auth/token.go") {
		t.Fatalf("body %q %v", body, err)
	}

	// Nothing new: nothing changes.
	rep, err = memory.Update(ctx, s, []memex.SessionRef{l.ref}, memory.UpdateOptions{})
	if err != nil || rep.Added != 0 || rep.Kept != 1 || len(rep.Removed) != 0 {
		t.Fatalf("second update %+v %v", rep, err)
	}

	// The session goes on and the test passes: the lesson is now fixed,
	// and replaces the abandoned one.
	pass := l.run("go test ./auth", 0, "ok")
	var indexed []memex.ID
	rep, err = memory.Update(ctx, s, []memex.SessionRef{l.ref}, memory.UpdateOptions{Added: func(e memex.Entry, _ []byte) { indexed = append(indexed, e.ID) }})
	if err != nil || rep.Added != 1 || len(rep.Removed) != 1 || rep.Removed[0] != first || len(indexed) != 1 {
		t.Fatalf("third update %+v %v", rep, err)
	}
	ls = l.lessons()
	if len(ls) != 1 || ls[0].Attrs["status"] != memory.StatusFixed || !strings.HasSuffix(ls[0].Summary, "passed ("+pass.String()+")") {
		t.Fatalf("lessons %+v", ls)
	}
	if _, err := s.Get(ctx, first); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("old lesson still there: %v", err)
	}
	if !ls[0].ID.Time().Equal(pass.Time()) {
		t.Fatalf("lesson at %v, want its last evidence's time %v", ls[0].ID.Time(), pass.Time())
	}

	// Its runs are kept for procedures, and its hint is found.
	runs, sessions, err := memory.ProjectRuns(ctx, s, project)
	if err != nil || sessions != 1 || len(runs) != 3 || !runs[2].Pass {
		t.Fatalf("runs %+v %d %v", runs, sessions, err)
	}
	id, status, err := memory.Hint(ctx, s, project, "go test ./auth", memory.Signature(mustGet(t, s, fail)))
	if err != nil || id != ls[0].ID || status != memory.StatusFixed {
		t.Fatalf("hint %s %s %v", id, status, err)
	}
}

func mustGet(t *testing.T, s *archive.Store, id memex.ID) memex.Entry {
	t.Helper()
	e, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestForgottenEvidenceLeavesNoCitation(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	l := newLive(t, s, "s1")
	l.run("make test", 2, "FAIL TestParse")
	fix := l.edit("parse.go")
	l.run("make test", 0, "PASS")
	l.run("make test", 0, "PASS")
	other := newLive(t, s, "s2")
	other.run("make test", 0, "PASS")
	if _, err := memory.Update(ctx, s, []memex.SessionRef{l.ref, other.ref}, memory.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := l.lessons()
	if len(before) != 1 || !strings.Contains(before[0].Attrs["cites"], fix.String()) {
		t.Fatalf("lessons %+v", before)
	}
	// Forget the edit: the lesson no longer cites it.
	gone := mustGet(t, s, fix)
	if err := s.Delete(ctx, fix); err != nil {
		t.Fatal(err)
	}
	rep, err := memory.Forgotten(ctx, s, []memex.Entry{gone}, memory.UpdateOptions{})
	if err != nil || len(rep.Removed) != 1 || rep.Removed[0] != before[0].ID {
		t.Fatalf("forgotten %+v %v", rep, err)
	}
	after := l.lessons()
	if len(after) != 1 || strings.Contains(after[0].Attrs["cites"], fix.String()) || strings.Contains(after[0].Summary, "parse.go") {
		t.Fatalf("lesson after forget %+v", after)
	}
	// Forget the lesson itself: it is not made again.
	lesson := after[0]
	if err := s.Delete(ctx, lesson.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := memory.Forgotten(ctx, s, []memex.Entry{lesson}, memory.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if ls := l.lessons(); len(ls) != 0 {
		t.Fatalf("forgotten lesson made again: %+v", ls)
	}
	// Forget a whole session: its runs leave the procedures' input.
	var s2 []memex.Entry
	_ = s.Session(ctx, other.ref, func(e memex.Entry) error { s2 = append(s2, e); return nil })
	for _, e := range s2 {
		if err := s.Delete(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := memory.Forgotten(ctx, s, s2, memory.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	runs, sessions, err := memory.ProjectRuns(ctx, s, project)
	if err != nil || sessions != 1 || len(runs) != 3 {
		t.Fatalf("runs after forgetting s2: %d in %d sessions, %v", len(runs), sessions, err)
	}
}
