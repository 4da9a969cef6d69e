package ingest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/testutil"
)

// importCount ingests paths under project into s and returns the entries
// added.
func importCount(t *testing.T, s *archive.Store, format ingest.Format, project string, paths ...string) int {
	t.Helper()
	rep, err := ingest.Run(context.Background(), s, ingest.Options{Format: format, Paths: paths, Project: project, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Added
}

// TestSameTrajectoriesUnderTwoProjects: importing one set of trajectories
// under two projects (two models run on the same tasks) stores exactly the
// sum of the two imports made apart, and each session once per project.
// Idempotency keys used to be looked up across projects, so the second
// import found them all "already present".
func TestSameTrajectoriesUnderTwoProjects(t *testing.T) {
	sets := map[string]struct {
		format ingest.Format
		path   string
	}{
		"testdata swe-agent": {ingest.SWEAgent, filepath.Join("testdata", "swe")},
		"testdata jsonl":     {ingest.JSONL, filepath.Join("testdata", "jsonl")},
	}
	if dir := testutil.CorporaDir(); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "swe-agent")); err == nil {
			sets["corpus swe-agent"] = struct {
				format ingest.Format
				path   string
			}{ingest.SWEAgent, filepath.Join(dir, "swe-agent")}
		}
	}
	ctx := context.Background()
	for name, set := range sets {
		t.Run(name, func(t *testing.T) {
			a := importCount(t, openStore(t), set.format, "model-a", set.path)
			b := importCount(t, openStore(t), set.format, "model-b", set.path)
			if a == 0 || a != b {
				t.Fatalf("imports apart: %d and %d entries", a, b)
			}
			both := openStore(t)
			first := importCount(t, both, set.format, "model-a", set.path)
			second := importCount(t, both, set.format, "model-b", set.path)
			if first != a || second != b {
				t.Errorf("into one store: %d then %d entries added, want %d and %d", first, second, a, b)
			}
			if again := importCount(t, both, set.format, "model-b", set.path); again != 0 {
				t.Errorf("a third import under model-b added %d entries", again)
			}
			st, err := both.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Entries != int64(a+b) {
				t.Errorf("store holds %d entries, want %d + %d", st.Entries, a, b)
			}
			list, err := both.Sessions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			perProject := map[string]int{}
			seen := map[memex.SessionRef]bool{}
			for _, si := range list {
				if seen[si.SessionRef] {
					t.Errorf("session %s listed twice", si.SessionRef)
				}
				seen[si.SessionRef] = true
				perProject[si.Project] += si.Entries
			}
			if perProject["model-a"] != a || perProject["model-b"] != b || len(perProject) != 2 {
				t.Errorf("session entries per project %v, want %d each", perProject, a)
			}
			// Each project's copy of a session replays alone.
			for _, si := range list {
				n := 0
				err := both.Session(ctx, si.SessionRef, func(e memex.Entry) error {
					if e.Project != si.Project {
						t.Fatalf("session %s yields an entry of %s", si.SessionRef, e.Project)
					}
					n++
					return nil
				})
				if err != nil || n != si.Entries {
					t.Errorf("session %s: %d entries, %v", si.SessionRef, n, err)
				}
			}
		})
	}
}

// secondModelRun copies the trajectories under dir as another model's run
// of the same tasks: the same instances (sessions), other words.
func secondModelRun(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		dst := filepath.Join(out, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, bytes.ReplaceAll(b, []byte("the "), []byte("a ")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTwoModelRunsOfTheSameTasks: two models' SWE-agent trajectories of
// the same tasks are stored in full, the sum of the imports apart, when
// each is imported under its own project; imported into one project, the
// records whose key the first run holds with other content are counted
// and warned about, not passed off as already present.
func TestTwoModelRunsOfTheSameTasks(t *testing.T) {
	runA := filepath.Join("testdata", "swe")
	runB := secondModelRun(t, runA)
	a := importCount(t, openStore(t), ingest.SWEAgent, "model-a", runA)
	b := importCount(t, openStore(t), ingest.SWEAgent, "model-b", runB)
	both := openStore(t)
	if got := importCount(t, both, ingest.SWEAgent, "model-a", runA) + importCount(t, both, ingest.SWEAgent, "model-b", runB); got != a+b || a == 0 {
		t.Fatalf("two runs under two projects added %d entries, want %d + %d", got, a, b)
	}

	one := openStore(t)
	importCount(t, one, ingest.SWEAgent, "same", runA)
	var warned []string
	rep, err := ingest.Run(context.Background(), one, ingest.Options{Format: ingest.SWEAgent, Paths: []string{runB}, Project: "same",
		Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 0 || rep.Present != b || rep.Differ == 0 || rep.Differ > rep.Present {
		t.Fatalf("second run into the same project: %+v", rep)
	}
	if len(warned) != 1 || !bytes.Contains([]byte(warned[0]), []byte("other content")) {
		t.Fatalf("warnings %q", warned)
	}
	again, err := ingest.Run(context.Background(), one, ingest.Options{Format: ingest.SWEAgent, Paths: []string{runA}, Project: "same", Full: true})
	if err != nil || again.Present != a || again.Differ != 0 {
		t.Fatalf("the same run again: %+v %v", again, err)
	}
	t.Logf("%d and %d entries; into one project the second run has %d of %d records with other content", a, b, rep.Differ, rep.Present)
}
