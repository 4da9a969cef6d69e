package catchup

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv("MEMEX_REINDEX_CHILD"); dir != "" {
		reindexChild(dir)
		return
	}
	os.Exit(m.Run())
}

// reindexChild rebuilds the index of the home in dir, printing a line
// after each chunk ("done total") and then waiting for a byte on stdin
// before it goes on, until done or killed: the parent kills it while it
// waits, at a point the kill cannot miss, whatever the machine's load.
func reindexChild(dir string) {
	s, err := archive.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	ix, err := index.Open(filepath.Join(dir, "index"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	var b [1]byte
	_, err = Reindex(ctx, s, ix, func(done, total int) {
		fmt.Printf("%d %d\n", done, total)
		os.Stdin.Read(b[:])
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	fmt.Println("finished")
	ix.Close()
	s.Close()
}

// bulkHome archives n entries without a sync per add, indexes them and
// closes the home.
func bulkHome(t *testing.T, dir string, n int) []memex.ID {
	t.Helper()
	s, err := archive.Open(filepath.Join(dir, "store"), &archive.Options{NoSync: true, MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var ids []memex.ID
	for i := range n {
		d := docs[i%len(docs)]
		e, err := s.Add(ctx, memex.Entry{Project: "p", Session: "s", Kind: memex.KindTool, Tool: d.tool, Input: d.input,
			Created: base.Add(time.Duration(i) * time.Millisecond)}, strings.NewReader(fmt.Sprintf("%s(run %d)\n", d.body, i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(dir, "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CatchUp(ctx, s, ix); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	s.Close()
	return ids
}

// TestReindexKilledIsFinishedByTheNextProcess kills a reindex after each
// of its chunks (the last time when it has indexed everything, before it merges):
// the index was left partial, with no marker to say what was missing, so
// search silently missed entries. Now verify's coverage check sees the gap
// and the next catch-up finishes the rebuild: every entry searchable.
func TestReindexKilledIsFinishedByTheNextProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("kills reindexes of 6,000 entries")
	}
	const n = chunkEntries + chunkEntries/2
	dir := t.TempDir()
	ids := bulkHome(t, dir, n)
	kills, partial := 0, 0
	for killAfter := 1; killAfter <= 3; killAfter++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MEMEX_REINDEX_CHILD="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		goOn, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		lines := 0
		for sc.Scan() {
			if sc.Text() == "finished" {
				t.Fatalf("round %d: the reindex finished before it was killed", killAfter)
			}
			if lines++; lines == killAfter {
				// It waits for the byte it will not get.
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
			goOn.Write([]byte{1})
		}
		goOn.Close()
		cmd.Wait()
		if lines < killAfter {
			t.Fatalf("round %d: reindex stopped after %d lines: %s", killAfter, lines, stderr.String())
		}
		kills++

		h := openHome(t, dir)
		cov, err := CheckCoverage(ctx, h.s, h.ix)
		if err != nil {
			t.Fatal(err)
		}
		if !cov.Rebuilding || cov.Entries != n {
			t.Errorf("round %d: coverage after the kill %+v: want the rebuild seen as unfinished", killAfter, cov)
		}
		if cov.Indexed < uint64(n) {
			partial++
			if len(cov.Missing)+cov.Pending < n-int(cov.Indexed) {
				t.Errorf("round %d: %d indexed of %d, but only %d missing and %d pending", killAfter, cov.Indexed, n, len(cov.Missing), cov.Pending)
			}
		}
		st, err := CatchUp(ctx, h.s, h.ix)
		if err != nil {
			t.Fatalf("round %d: catch-up after the kill: %v", killAfter, err)
		}
		if !st.Resumed {
			t.Errorf("round %d: catch-up did not say it finished a rebuild: %+v", killAfter, st)
		}
		cov, err = CheckCoverage(ctx, h.s, h.ix)
		if err != nil {
			t.Fatal(err)
		}
		if cov.Rebuilding || len(cov.Missing) > 0 || cov.Pending > 0 || cov.Indexed != uint64(n) {
			t.Fatalf("round %d: after the catch-up %+v (%d missing)", killAfter, cov, len(cov.Missing))
		}
		for _, id := range []memex.ID{ids[0], ids[n/2], ids[n-1]} {
			if ok, err := h.ix.Has(id); !ok || err != nil {
				t.Fatalf("round %d: %s not indexed: %v", killAfter, id, err)
			}
		}
		h.close()
	}
	t.Logf("%d reindexes of %d entries killed, %d of them with a partial index; all finished by the next catch-up", kills, n, partial)
}

// TestRebuildKilledWhileMarkingStartsOver: a rebuild that died before
// every entry was marked (the index already emptied) is started again.
func TestRebuildKilledWhileMarkingStartsOver(t *testing.T) {
	h := openHome(t, t.TempDir())
	ids := h.add(t, 20)
	if _, err := CatchUp(ctx, h.s, h.ix); err != nil {
		t.Fatal(err)
	}
	// What a process killed after emptying the index, having marked a
	// few entries, leaves.
	if err := h.s.SetState(ctx, rebuildState, []byte(phaseReset)); err != nil {
		t.Fatal(err)
	}
	if err := h.ix.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := h.s.MarkPending(ctx, ids[:3]...); err != nil {
		t.Fatal(err)
	}
	st, err := CatchUp(ctx, h.s, h.ix)
	if err != nil || !st.Resumed || st.Indexed != 20 {
		t.Fatalf("catch-up: %+v %v", st, err)
	}
	if n, _ := h.ix.Count(); n != 20 {
		t.Fatalf("%d indexed after the resumed rebuild", n)
	}
}

// TestLostIndexIsRebuilt: an index that holds nothing while the archive's
// entries are marked indexed (dropped because it was damaged, or deleted)
// is rebuilt by the next catch-up.
func TestLostIndexIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	h := openHome(t, dir)
	h.add(t, 12)
	if _, err := CatchUp(ctx, h.s, h.ix); err != nil {
		t.Fatal(err)
	}
	h.ix.Close()
	if err := index.Drop(filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(dir, "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.ix = ix
	if cov, err := CheckCoverage(ctx, h.s, h.ix); err != nil || len(cov.Missing) != 12 {
		t.Fatalf("coverage of a lost index: %+v %v", cov, err)
	}
	st, err := CatchUp(ctx, h.s, h.ix)
	if err != nil || !st.Rebuilt || st.Indexed != 12 {
		t.Fatalf("catch-up of a lost index: %+v %v", st, err)
	}
	if got := h.search(t, "nil map"); len(got) == 0 {
		t.Fatal("nothing found after the rebuild")
	}
	// An empty archive with an empty index is not a lost index.
	e := openHome(t, t.TempDir())
	if st, err := CatchUp(ctx, e.s, e.ix); err != nil || st.Rebuilt {
		t.Fatalf("catch-up of an empty home: %+v %v", st, err)
	}
}
