package main

import (
	"strings"
	"testing"
)

// TestSessionPrefix: the first characters of a session's name name it in
// replay and context --session, from the store and through a running
// server alike (memex replay 5f0c2a91, as the README shows); a prefix of
// several names is an error listing them.
func TestSessionPrefix(t *testing.T) {
	home := t.TempDir()
	for _, s := range []string{"5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", "5f1d0000-aaaa", "5f1d9999-bbbb"} {
		if r := run(t, home, []byte("output of "+s+"\n"), "add", "--session", s, "--tool", "bash", "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	check := func(where string) {
		t.Helper()
		for _, args := range [][]string{{"replay", "5f0c2a91"}, {"replay", "5f0c", "--full"}, {"context", "--session", "5f0c"}} {
			r := run(t, home, nil, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "output of 5f0c2a91-7d3e") && !strings.Contains(r.stdout, "5f0c2a91-7d3e") {
				t.Errorf("%s: %v: %+v", where, args, r)
			}
		}
		r := run(t, home, nil, "replay", "5f1d")
		if r.code != 1 || !strings.Contains(r.stderr, "5f1d0000-aaaa") || !strings.Contains(r.stderr, "5f1d9999-bbbb") {
			t.Errorf("%s: replay of an ambiguous prefix: %+v", where, r)
		}
		if r := run(t, home, nil, "replay", "5f2"); r.code != 1 || !strings.Contains(r.stderr, `session "5f2": not found`) {
			t.Errorf("%s: replay of no session's prefix: %+v", where, r)
		}
	}
	check("from the store")
	startServe(t, home)
	check("through the server")
}
