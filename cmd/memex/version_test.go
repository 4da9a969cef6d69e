package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	home := t.TempDir()
	r := run(t, home, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "memex "+version) {
		t.Fatalf("--version: %+v", r)
	}
	r = run(t, home, nil, "version", "--json")
	var b buildinfo.Info
	if err := json.Unmarshal([]byte(r.stdout), &b); err != nil || b.Version != version || b.Go == "" {
		t.Fatalf("version --json: %v %+v", err, r)
	}
}
