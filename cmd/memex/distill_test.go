package main

import (
	"encoding/json"
	"testing"

	"github.com/memex-archive/memex/memory"
)

// TestDistillServed: memex distill runs while memex serve owns the store
// (it was refused as busy), and reports what it reports without a server.
func TestDistillServed(t *testing.T) {
	home := t.TempDir()
	for _, s := range []string{"s1", "s2"} {
		if r := run(t, home, []byte("a note\n"), "add", "--project", "p", "--session", s, "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	distill := func() memory.UpdateReport {
		t.Helper()
		r := run(t, home, nil, "distill", "--json")
		var rep memory.UpdateReport
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
			t.Fatalf("distill: %+v", r)
		}
		return rep
	}
	local := distill()
	if local.Sessions != 2 {
		t.Fatalf("local distill: %+v", local)
	}
	startServe(t, home)
	if served := distill(); served.Sessions != local.Sessions || served.Lessons != local.Lessons {
		t.Fatalf("served distill %+v, local %+v", served, local)
	}
	if r := run(t, home, nil, "distill", "--project", "q"); r.code != 0 || r.stdout != "distilled 0 sessions: 0 lessons (0 added, 0 kept, 0 removed), 0 runs for procedures\n" {
		t.Fatalf("served distill --project q: %+v", r)
	}
}
