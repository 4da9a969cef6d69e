package archive

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// A unique prefix of a session's name names it (memex replay 5f0c2a91);
// one that starts several is an error listing them, which the project
// narrows; a full name stays itself even when it starts others (issue 14).
func TestResolveSessionPrefix(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	long := "5f0c" + strings.Repeat("x", 200) // a name whose length takes two bytes
	refs := []memex.SessionRef{
		{Session: "5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", Project: "api", Agent: "claude-code"},
		{Session: "5f0d9e00-1111-4222-8333-444455556666", Project: "web", Agent: "codex"},
		{Session: "abc", Project: "api", Agent: "cli"},
		{Session: "abcdef", Project: "web", Agent: "cli"},
		{Session: "-abc", Project: "api", Agent: "cli"},
		{Session: long, Project: "web", Agent: "cli"},
	}
	for _, r := range refs {
		for range 3 {
			add(t, s, memex.Entry{Session: r.Session, Project: r.Project, Agent: r.Agent}, []byte("step of "+r.Session))
		}
	}
	for _, c := range []struct {
		in   memex.SessionRef
		want string
	}{
		{memex.SessionRef{Session: "5f0c2a91"}, refs[0].Session},
		{memex.SessionRef{Session: "5f0d"}, refs[1].Session},
		{memex.SessionRef{Session: "5f0", Project: "api"}, refs[0].Session},
		{memex.SessionRef{Session: "5f0", Agent: "codex"}, refs[1].Session},
		{memex.SessionRef{Session: "5f0cx"}, long},
		{memex.SessionRef{Session: "abc"}, "abc"}, // a name of its own, though it starts abcdef
		{memex.SessionRef{Session: "abcd"}, "abcdef"},
		{memex.SessionRef{Session: "abc", Project: "web"}, "abcdef"},
		{memex.SessionRef{Session: "-ab"}, "-abc"},
		{memex.SessionRef{Session: "nosuch"}, "nosuch"}, // left for Session to report
		{memex.SessionRef{Session: "5f0c2a91", Project: "web"}, "5f0c2a91"},
	} {
		got, err := s.ResolveSession(ctx, c.in)
		if err != nil || got.Session != c.want || got.Project != c.in.Project || got.Agent != c.in.Agent {
			t.Errorf("ResolveSession(%+v) = %+v, %v; want %q", c.in, got, err, c.want)
		}
	}
	_, err := s.ResolveSession(ctx, memex.SessionRef{Session: "5f0"})
	if !errors.Is(err, memex.ErrAmbiguous) || !strings.Contains(err.Error(), refs[0].Session+" (agent claude-code, project api)") ||
		!strings.Contains(err.Error(), refs[1].Session) || !strings.Contains(err.Error(), "--project") || !strings.Contains(err.Error(), "starts 3 sessions") {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	// The whole store's sessions are no prefix of one name.
	if got, err := s.ResolveSession(ctx, memex.SessionRef{Session: ""}); err != nil || got.Session != "" {
		t.Errorf("empty name: %+v, %v", got, err)
	}
}

// The keys of a version 2 store carry no project or agent: the records say.
func TestResolveSessionPrefixInVersion2Store(t *testing.T) {
	s, err := Open(copyDir(t, filepath.Join("testdata", "v2store")), &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if got, err := s.ResolveSession(ctx, memex.SessionRef{Session: "django", Project: "model-b"}); err != nil || got.Session != "django__django-1" {
		t.Errorf("django in model-b: %+v, %v", got, err)
	}
	if got, err := s.ResolveSession(ctx, memex.SessionRef{Session: "so"}); err != nil || got.Session != "solo" {
		t.Errorf("so: %+v, %v", got, err)
	}
	if _, err := s.ResolveSession(ctx, memex.SessionRef{Session: "d"}); err != nil {
		t.Errorf("d names one name in two projects: that is Session's to report: %v", err)
	}
}

// SESSION#N, the N-th tool call of a session, takes the unique prefix of
// the session's name that replay and context take (memex sessions shows
// a UUID by it): memex show 5f0c2a91#1.
func TestResolveStepOfASessionPrefix(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	full, other := "5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", "5f0d9e00-1111-4222-8333-444455556666"
	var ids []memex.ID
	for n := range 2 {
		e := add(t, s, memex.Entry{Session: full, Project: "api", Aliases: []string{full + "#" + string(rune('0'+n))}}, []byte("call "+string(rune('0'+n))))
		ids = append(ids, e.ID)
	}
	add(t, s, memex.Entry{Session: other, Project: "web", Aliases: []string{other + "#0"}}, []byte("other call"))
	for _, c := range []struct {
		ref, project string
		want         memex.ID
	}{
		{full + "#1", "", ids[1]},
		{"5f0c2a91#1", "", ids[1]},
		{"5f0c#0", "", ids[0]},
		{"5f0#0", "api", ids[0]},
	} {
		if got, err := s.Resolve(ctx, c.ref, c.project); err != nil || got != c.want {
			t.Errorf("Resolve(%q, %q) = %v, %v; want %v", c.ref, c.project, got, err, c.want)
		}
	}
	_, err := s.Resolve(ctx, "5f0#0", "")
	if !errors.Is(err, memex.ErrAmbiguous) || !strings.Contains(err.Error(), other) {
		t.Errorf("the step of an ambiguous prefix: %v", err)
	}
	for _, ref := range []string{"5f0c2a91#7", "nosuch#0", "5f0c2a91#x"} {
		if _, err := s.Resolve(ctx, ref, ""); !errors.Is(err, memex.ErrNotFound) || !strings.Contains(err.Error(), ref+": not found") {
			t.Errorf("Resolve(%q): %v, want %q not found", ref, err, ref)
		}
	}
}
