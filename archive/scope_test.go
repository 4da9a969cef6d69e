package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// TestSessionIsNameProjectAndAgent: the same session name in two projects
// (two models run on one task), or from two agents, is two sessions; a
// bare name that names several is an error listing them, which the project
// and the agent narrow.
func TestSessionIsNameProjectAndAgent(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	refs := []memex.SessionRef{
		{Session: "django-1", Project: "model-a", Agent: "swe-agent"},
		{Session: "django-1", Project: "model-b", Agent: "swe-agent"},
		{Session: "django-1", Project: "model-b", Agent: "mini-swe-agent"},
	}
	ids := map[memex.SessionRef][]memex.ID{}
	for step := range 3 {
		for _, r := range refs {
			e := add(t, s, memex.Entry{Session: r.Session, Project: r.Project, Agent: r.Agent}, []byte(r.String()+" step "+string(rune('0'+step))))
			ids[r] = append(ids[r], e.ID)
		}
	}
	list, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("Sessions lists %d sessions, want one per name, project and agent (3): %+v", len(list), list)
	}
	for _, si := range list {
		if si.Entries != 3 || len(ids[si.SessionRef]) != 3 {
			t.Errorf("session %+v", si)
		}
	}
	if st, err := s.Stats(ctx); err != nil || st.Sessions != 3 {
		t.Errorf("stats count %d sessions, %v; want 3", st.Sessions, err)
	}
	for _, r := range refs {
		var got []memex.ID
		if err := s.Session(ctx, r, func(e memex.Entry) error {
			if e.Project != r.Project || e.Agent != r.Agent {
				t.Errorf("session %s yields an entry of %s/%s", r, e.Project, e.Agent)
			}
			got = append(got, e.ID)
			return nil
		}); err != nil {
			t.Fatalf("session %s: %v", r, err)
		}
		if len(got) != 3 || got[0] != ids[r][0] || got[2] != ids[r][2] {
			t.Errorf("session %s: %v, want %v", r, got, ids[r])
		}
	}
	none := func(memex.Entry) error { return nil }
	err = s.Session(ctx, memex.SessionRef{Session: "django-1"}, none)
	if !errors.Is(err, memex.ErrAmbiguous) || !strings.Contains(err.Error(), "3 sessions") ||
		!strings.Contains(err.Error(), "--project") || !strings.Contains(err.Error(), "--agent") ||
		!strings.Contains(err.Error(), "project model-a") {
		t.Errorf("a bare name of three sessions: %v", err)
	}
	// The project narrows it to two of one project: only the agent can
	// tell them apart, and the error says so.
	err = s.Session(ctx, memex.SessionRef{Session: "django-1", Project: "model-b"}, none)
	if !errors.Is(err, memex.ErrAmbiguous) || strings.Contains(err.Error(), "--project") || !strings.Contains(err.Error(), "--agent") {
		t.Errorf("a name of two agents' sessions in one project: %v", err)
	}
	n := 0
	if err := s.Session(ctx, memex.SessionRef{Session: "django-1", Project: "model-a"}, func(memex.Entry) error { n++; return nil }); err != nil || n != 3 {
		t.Errorf("narrowed to model-a: %d entries, %v", n, err)
	}
	if err := s.Session(ctx, memex.SessionRef{Session: "django-1", Project: "model-c"}, none); !errors.Is(err, memex.ErrNotFound) {
		t.Errorf("a project with no such session: %v", err)
	}
	// Entries with no project (a hook given no working directory) join
	// the one session of their name that has a project.
	add(t, s, memex.Entry{Session: "solo", Agent: "claude-code"}, []byte("captured without a cwd"))
	add(t, s, memex.Entry{Session: "solo", Project: "p", Agent: "claude-code"}, []byte("imported"))
	add(t, s, memex.Entry{Session: "solo", Agent: "mcp"}, []byte("compressed without a project"))
	for _, ref := range []memex.SessionRef{{Session: "solo"}, {Session: "solo", Project: "p"}} {
		n = 0
		if err := s.Session(ctx, ref, func(memex.Entry) error { n++; return nil }); err != nil || n != 3 {
			t.Errorf("session %s with project-less entries: %d entries, %v; want 3", ref, n, err)
		}
	}
	if list, _ := s.Sessions(ctx); len(list) != 6 {
		t.Errorf("Sessions lists %d, want one per name, project and agent (6): %+v", len(list), list)
	}
	add(t, s, memex.Entry{Session: "solo", Project: "q", Agent: "claude-code"}, []byte("another project"))
	if err := s.Session(ctx, memex.SessionRef{Session: "solo"}, none); !errors.Is(err, memex.ErrAmbiguous) {
		t.Errorf("a name in two projects and in none: %v", err)
	}
	for _, id := range ids[refs[0]] {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if list, _ := s.Sessions(ctx); len(list) != 6 {
		t.Errorf("after deleting a session's entries, Sessions lists %+v", list)
	}
}

// TestAliasNamesNewestEntryOfItsProject is the alias rule: within a
// project, a name names one entry, the newest written under it; the older
// ones stay reachable by their IDs. The same name in two projects names one
// entry in each, and the project narrows it.
func TestAliasNamesNewestEntryOfItsProject(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	first := add(t, s, memex.Entry{Project: "p", Aliases: []string{"x"}}, []byte("a"))
	second := add(t, s, memex.Entry{Project: "p", Aliases: []string{"x"}}, []byte("b"))
	for _, project := range []string{"", "p"} {
		if id, err := s.Resolve(ctx, "x", project); err != nil || id != second.ID {
			t.Fatalf("x (project %q) = %v, %v; want the newer entry %s", project, id, err, second.ID)
		}
	}
	if id, err := s.Resolve(ctx, first.ID.String(), ""); err != nil || id != first.ID {
		t.Fatalf("the older entry by its ID: %v, %v", id, err)
	}
	if b := readAll(t, s, first.ID); string(b) != "a" {
		t.Fatalf("older entry reads %q", b)
	}
	other := add(t, s, memex.Entry{Project: "q", Aliases: []string{"x"}}, []byte("c"))
	_, err := s.Resolve(ctx, "x", "")
	if !errors.Is(err, memex.ErrAmbiguous) || !strings.Contains(err.Error(), second.ID.String()) ||
		!strings.Contains(err.Error(), other.ID.String()) || strings.Contains(err.Error(), first.ID.String()) {
		t.Fatalf("x in two projects: %v (want the newest of each, not the replaced one)", err)
	}
	if id, err := s.Resolve(ctx, "x", "q"); err != nil || id != other.ID {
		t.Fatalf("x narrowed to q = %v, %v", id, err)
	}
	if _, err := s.Resolve(ctx, "x", "r"); !errors.Is(err, memex.ErrNotFound) || !strings.Contains(err.Error(), "project p, project q") {
		t.Fatalf("x narrowed to a project it names nothing in: %v", err)
	}
	// Lookup is exact: the scope asked for, never another.
	if id, err := s.Lookup(ctx, "x", "q"); err != nil || id != other.ID {
		t.Fatalf("Lookup x in q = %v, %v", id, err)
	}
	if _, err := s.Lookup(ctx, "x", "r"); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("Lookup x in r: %v, want not found", err)
	}
	// No project is everyone's: a record captured without its project and
	// the same record imported with one are one record.
	if id, err := s.Lookup(ctx, "x", ""); err != nil || id != other.ID {
		t.Fatalf("Lookup x with no project = %v, %v; want the newest of any project", id, err)
	}
	hooked := add(t, s, memex.Entry{Aliases: []string{"cc:toolu_1"}}, []byte("hook"))
	if id, err := s.Lookup(ctx, "cc:toolu_1", "p"); err != nil || id != hooked.ID {
		t.Fatalf("Lookup of a project-less entry's key in p = %v, %v", id, err)
	}
	// Forgetting the newest entry gives the name back to the one before.
	if err := s.Delete(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Resolve(ctx, "x", "p"); err != nil || id != first.ID {
		t.Fatalf("x in p after deleting its newest entry = %v, %v", id, err)
	}
}

// copyDir copies the files of src into a new temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// testdata/v2store was written by the archive of schema version 2 (memex
// at commit 65e41b7): one session name in projects model-a and model-b
// (three steps each, aliases swe:django__django-1:N and
// django__django-1#N), alias x written twice in model-a's session solo,
// a body in chunks, an entry with no session. Its keys carry no scope.
const (
	v2FirstX  = "01KT1GWDARXTETB9VXZHG746MB"
	v2SecondX = "01KT1GWEA0922N76J15EFF7YBC"
	v2BStep0  = "01KT1GWAD0E0E4CR81T5K5XNAG"
)

func TestVersion2StoreIsReadAndUpgraded(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "v2store"))
	ctx := context.Background()
	check := func(s *Store) {
		t.Helper()
		list, err := s.Sessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []memex.SessionRef{
			{Session: "django__django-1", Project: "model-a", Agent: "swe-agent"},
			{Session: "django__django-1", Project: "model-b", Agent: "swe-agent"},
			{Session: "solo", Project: "model-a", Agent: "cli"},
		}
		if len(list) != len(want) {
			t.Fatalf("sessions of the v2 store: %+v", list)
		}
		for i, si := range list {
			if si.SessionRef != want[i] || si.Entries != 3 {
				t.Errorf("session %d: %+v, want %+v with 3 entries", i, si, want[i])
			}
		}
		if err := s.Session(ctx, memex.SessionRef{Session: "django__django-1"}, func(memex.Entry) error { return nil }); !errors.Is(err, memex.ErrAmbiguous) {
			t.Errorf("bare name of two sessions: %v", err)
		}
		var bodies []string
		if err := s.Session(ctx, memex.SessionRef{Session: "django__django-1", Project: "model-b"}, func(e memex.Entry) error {
			bodies = append(bodies, string(readAll(t, s, e.ID)))
			return nil
		}); err != nil || len(bodies) != 3 || bodies[0] != "model-b output of step 0\n" {
			t.Errorf("session of model-b: %q, %v", bodies, err)
		}
		if id, err := s.Resolve(ctx, "x", ""); err != nil || id.String() != v2SecondX {
			t.Errorf("x = %v, %v; want the newer %s", id, err, v2SecondX)
		}
		if id, err := s.Resolve(ctx, "django__django-1#0", "model-b"); err != nil || id.String() != v2BStep0 {
			t.Errorf("django__django-1#0 in model-b = %v, %v", id, err)
		}
		if id, err := s.Lookup(ctx, "swe:django__django-1:0", "model-b"); err != nil || id.String() != v2BStep0 {
			t.Errorf("Lookup of an ingest key in model-b = %v, %v", id, err)
		}
		var probs []Problem
		if n, err := s.Verify(ctx, func(p Problem) { probs = append(probs, p) }); err != nil || n != 10 || len(probs) > 0 {
			t.Errorf("verify of the v2 store: %d entries, %v, %v", n, probs, err)
		}
	}

	s, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(s)
	if v, _ := s.get(schemaKey); string(v) != "2" {
		t.Errorf("read-only open changed the schema version to %s", v)
	}
	s.Close()

	s, err = Open(dir, &Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.get(schemaKey); string(v) != "3" {
		t.Errorf("schema after a writable open: %s", v)
	}
	check(s)
	// New entries join the old sessions and names in their scope.
	third := add(t, s, memex.Entry{Session: "solo", Project: "model-a", Agent: "cli", Aliases: []string{"x"}}, []byte("third x\n"))
	if id, err := s.Resolve(ctx, "x", ""); err != nil || id != third.ID {
		t.Errorf("x after a v3 add = %v, %v", id, err)
	}
	n := 0
	if err := s.Session(ctx, memex.SessionRef{Session: "solo"}, func(memex.Entry) error { n++; return nil }); err != nil || n != 4 {
		t.Errorf("session solo with a v3 entry: %d, %v", n, err)
	}
	if list, _ := s.Sessions(ctx); len(list) != 3 {
		t.Errorf("a v3 entry in a v2 session made another session: %+v", list)
	}
	var all []memex.ID
	s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error { all = append(all, e.ID); return nil })
	for _, id := range all {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	noKeysLeft(t, s)
}
