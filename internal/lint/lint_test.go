// Package lint holds tests that keep the project's conventions true: which
// package may import which (ARCHITECTURE.md §4), and which third-party
// module may be imported where (their types stay inside their adapter).
package lint

import (
	"encoding/json"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

const module = "github.com/memex-archive/memex"

// allowed lists, per package (relative to the module; "" is the root), the
// project packages its non-test code may import. A package missing here
// fails the test: a new package needs a decision.
var allowed = map[string][]string{
	"":                  {},
	"summarize":         {""},
	"archive":           {"", "summarize"},
	"index":             {""},
	"ingest":            {"", "summarize", "internal/redact", "internal/jsonerr"},
	"deref":             {"", "summarize"},
	"api":               {"", "deref"},
	"eval":              {"*", "-api", "-cmd/memex"},
	"cmd/memex":         {"*"},
	"internal/testutil": {},
	"internal/lint":     {},
	"internal/redact":   {},
	"internal/jsonerr":  {},
	"internal/catchup":  {"", "archive", "index", "summarize"},
	"internal/hosts":    {"", "ingest"},
}

// thirdParty maps a module path prefix to the packages allowed to import
// it: the adapter that owns its types.
var thirdParty = map[string][]string{
	"github.com/cockroachdb/pebble":          {"archive"},
	"github.com/blevesearch/bleve":           {"index", "eval"},
	"github.com/go-chi/chi":                  {"api"},
	"github.com/modelcontextprotocol/go-sdk": {"api"},
	"modernc.org/sqlite":                     {"ingest"},
	"github.com/spf13/cobra":                 {"cmd/memex"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func listPackages(t *testing.T) []pkg {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = testutil.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func rel(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	if strings.HasPrefix(importPath, module+"/") {
		return strings.TrimPrefix(importPath, module+"/"), true
	}
	return "", false
}

func mayImport(from, to string) bool {
	rules, ok := allowed[from]
	if !ok {
		return false
	}
	any := false
	for _, r := range rules {
		switch {
		case r == "*":
			any = true
		case strings.HasPrefix(r, "-"):
			if to == r[1:] || strings.HasPrefix(to, r[1:]+"/") {
				return false
			}
		case r == to:
			return true
		}
	}
	return any
}

func TestPackageImportRules(t *testing.T) {
	for _, p := range listPackages(t) {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		if _, known := allowed[from]; !known {
			t.Errorf("package %q has no import rule: add it to internal/lint/lint_test.go (and ARCHITECTURE's table)", from)
			continue
		}
		for _, imp := range p.Imports {
			if to, ok := rel(imp); ok {
				if !mayImport(from, to) {
					t.Errorf("%s imports %s: not allowed", displayName(from), displayName(to))
				}
				continue
			}
			for mod, owners := range thirdParty {
				if imp == mod || strings.HasPrefix(imp, mod+"/") || strings.HasPrefix(imp, mod+".") {
					if !contains(owners, from) {
						t.Errorf("%s imports %s: only %v may (its types stay in their adapter)", displayName(from), imp, owners)
					}
				}
			}
		}
	}
}

func TestRulesCatchViolations(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"archive", "index", false},
		{"index", "archive", false},
		{"archive", "summarize", true},
		{"eval", "api", false},
		{"eval", "archive", true},
		{"cmd/memex", "api", true},
		{"deref", "archive", false},
		{"unknown", "", false},
	} {
		if got := mayImport(c.from, c.to); got != c.ok {
			t.Errorf("mayImport(%q, %q) = %v, want %v", c.from, c.to, got, c.ok)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func displayName(rel string) string {
	if rel == "" {
		return "memex (root)"
	}
	return path.Clean(rel)
}
