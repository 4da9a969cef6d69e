// Package lint holds tests that keep the project's conventions true: which
// package may import which (ARCHITECTURE.md §4), and which third-party
// module may be imported where (their types stay inside their adapter).
package lint

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

const module = "github.com/memex-archive/memex"

// allowed lists, per package (relative to the module; "" is the root), the
// project packages its non-test code may import. A package missing here
// fails the test: a new package needs a decision. api imports memory for
// the types its Memory answers with (a capsule, stale memories,
// procedures, lessons: typed, not any); internal/service imports
// internal/hosts for the key a hook's capture is archived once under.
var allowed = map[string][]string{
	"":          {},
	"summarize": {"", "internal/jsondec", "internal/lazyre"},
	"archive":   {"", "summarize"},
	"index":     {"", "summarize"},
	"ingest":    {"", "summarize", "internal/jsondec", "internal/jsonerr", "internal/lazyre"},
	"deref":     {"", "summarize"},
	"api":       {"", "deref", "memory"},
	"api/web":   {"", "api", "deref"},
	"memory":    {"", "summarize", "deref", "internal/lazyre"},
	"eval":      {"*", "-api", "-cmd/memex", "-internal/cli"},
	"cmd/memex": {"*"},
	// The hook of a tool call, without the store: see TestHookBinaryStaysSmall.
	"cmd/memex-hook":    {"", "internal/buildinfo", "internal/homedir", "internal/hosts", "internal/redact", "internal/spool"},
	"internal/testutil": {},
	// What a binary knows of its build: the standard library alone.
	"internal/buildinfo": {},
	"internal/lint":      {},
	"internal/redact":    {""},
	"internal/jsonerr":   {},
	"internal/jsondec":   {},
	"internal/lazyre":    {},
	"internal/catchup":   {"", "index"},
	"internal/hosts":     {"", "ingest"},
	"internal/home":      {"", "archive", "index", "internal/homedir", "internal/spool"},
	// Where a home is and the names memex-hook reads in it: the standard library alone.
	"internal/homedir": {},
	// The spool of a home and the flight of hooks: what memex-hook links.
	"internal/spool": {""},
	// The process memex serve runs: listener, token, key, viewer and API over a home.
	"internal/serve": {"", "api", "api/web", "archive", "deref", "eval", "ingest", "internal/home", "internal/service"},
	// The Services over a home: Local, per-call locking, the write policy.
	"internal/service":             {"", "api", "archive", "index", "deref", "ingest", "summarize", "memory", "internal/catchup", "internal/home", "internal/hosts", "internal/redact", "internal/spool"},
	"internal/render":              {"", "api", "deref", "memory", "summarize"},
	"internal/service/servicetest": {"", "api", "deref", "memory"},
	// The command line's own machinery (exit codes, usage errors, --json
	// output, flag values): cmd/memex alone imports it, and it knows
	// nothing of the store (no archive, index, home or service).
	"internal/cli": {"", "api", "internal/hosts"},
	// What a host's hook event does, through a Service.
	"internal/hook": {"", "api", "ingest", "internal/home", "internal/hosts", "internal/service", "internal/spool"},
}

// thirdParty maps a module path prefix to the packages allowed to import
// it: the adapter that owns its types.
var thirdParty = map[string][]string{
	"github.com/cockroachdb/pebble":          {"archive"},
	"github.com/blevesearch/bleve":           {"index", "eval"},
	"go.etcd.io/bbolt":                       {"index"}, // bleve's root.bolt (index/tidy.go)
	"github.com/go-chi/chi":                  {"api"},
	"github.com/modelcontextprotocol/go-sdk": {"api"},
	"modernc.org/sqlite":                     {"internal/service", "eval"}, // eval: FTS5 beside memex and BM25 (eval/fts5.go)
	"github.com/spf13/cobra":                 {"cmd/memex", "internal/cli"},
	"github.com/gofrs/flock":                 {"internal/home", "internal/spool"},
	"github.com/go-json-experiment/json":     {"internal/jsondec"},
}

// opensStore lists the packages whose non-test code may call archive.Open
// or index.Open: internal/home owns the lock contract of a home, and eval
// opens in-memory stores of its own.
var opensStore = []string{"internal/home", "eval"}

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

// hookBinaryMayNotLink are what cmd/memex-hook must not link, directly or
// not: the store, the index, the server, the MCP SDK and SQLite, and the
// packages that bring them. Their package initialisation was most of a
// hook's CPU when every hook was a memex process (docs/performance.md,
// Hooks); memex-hook hands whatever needs them to memex.
var hookBinaryMayNotLink = []string{
	"github.com/cockroachdb/", "github.com/blevesearch/", "github.com/modelcontextprotocol/",
	"modernc.org/", "github.com/prometheus/", "google.golang.org/protobuf", "github.com/gogo/protobuf",
	"github.com/golang/protobuf", "github.com/go-chi/", "github.com/spf13/", "encoding/gob",
	module + "/archive", module + "/index", module + "/api", module + "/deref", module + "/memory",
	module + "/eval", module + "/internal/home", module + "/internal/service", module + "/internal/hook",
	module + "/internal/catchup", module + "/internal/cli",
}

// TestHookBinaryStaysSmall keeps memex-hook fast to start: what it links,
// directly or through the packages it imports, is none of
// hookBinaryMayNotLink.
func TestHookBinaryStaysSmall(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/memex-hook")
	cmd.Dir = testutil.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list found no dependencies of cmd/memex-hook")
	}
	for _, dep := range deps {
		for _, bad := range hookBinaryMayNotLink {
			if dep == bad || strings.HasPrefix(dep, bad) && (strings.HasSuffix(bad, "/") || strings.HasPrefix(dep, bad+"/")) {
				t.Errorf("cmd/memex-hook links %s (it must not link %s: see hookBinaryMayNotLink)", dep, bad)
			}
		}
	}
}

// hostLayout are names that only code knowing a host's file layout
// writes: its configuration files and the environment variables that move
// them. internal/hosts owns that knowledge; ingest reads the hosts'
// transcripts (and resolves CODEX_HOME and GEMINI_CLI_HOME for both).
var hostLayout = []string{
	"CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME",
	"settings.json", "hooks.json", "config.toml", "opencode.json", ".claude.json", ".mcp.json", "rollout-",
}

var hostLayoutOwners = []string{"internal/hosts", "ingest", "internal/lint"}

// TestHostLayoutStaysInHosts: nothing outside internal/hosts (and ingest,
// for transcripts) names a host's configuration files.
func TestHostLayoutStaysInHosts(t *testing.T) {
	root := testutil.ModuleRoot()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || contains(hostLayoutOwners, filepath.ToSlash(filepath.Dir(rel))) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, name := range hostLayout {
			if strings.Contains(string(b), name) {
				t.Errorf("%s names %q: a host's file layout belongs in internal/hosts", filepath.ToSlash(rel), name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOnlyHomeOpensTheStore keeps the concurrency contract in one place:
// a store or index opened anywhere else would skip its lock.
func TestOnlyHomeOpensTheStore(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \",\"}}", "./...")
	cmd.Dir = testutil.ModuleRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		from, ok := rel(f[0])
		if !ok || contains(opensStore, from) {
			continue
		}
		for _, name := range strings.Split(f[2], ",") {
			for _, call := range storeOpens(t, filepath.Join(f[1], name)) {
				t.Errorf("%s: %s: only %v may open a store or index (internal/home holds the lock)", displayName(from), call, opensStore)
			}
		}
	}
}

// storeOpens returns the calls of archive.Open and index.Open in file,
// by position.
func storeOpens(t *testing.T, file string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{} // name in this file -> package
	for _, im := range f.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		if p != module+"/archive" && p != module+"/index" {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		local[name] = path.Base(p)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Open" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] != "" {
			out = append(out, fmt.Sprintf("%s %s.Open", fset.Position(sel.Pos()), local[id.Name]))
		}
		return true
	})
	return out
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
		{"internal/hosts", "ingest", true},
		{"internal/hosts", "archive", false},
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
