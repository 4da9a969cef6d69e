package archive

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/memex-archive/memex"
)

// crashBody is the deterministic content of the i-th entry the crash
// writer adds: mostly small, every 25th large enough to stream through
// unsynced flushes.
func crashBody(i int) []byte {
	if i%25 == 24 {
		return randomBytes(FlushSize+ChunkSize, int64(i))
	}
	return bigText(100+i*37%5000, int64(i))
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("MEMEX_CRASH_WRITER"); dir != "" {
		crashWriter(dir)
		return
	}
	os.Exit(m.Run())
}

// crashWriter adds entries forever, printing "i ID" after each Add returns
// (the acknowledgement), until it is killed.
func crashWriter(dir string) {
	s, err := Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		e, err := s.Add(context.Background(), memex.Entry{Session: "crash", Aliases: []string{"n" + strconv.Itoa(i)}}, bytes.NewReader(crashBody(i)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		fmt.Fprintf(w, "%d %s\n", i, e.ID)
		w.Flush()
	}
}

func TestKillDuringAddsLosesNoAcknowledgedEntry(t *testing.T) {
	dir := t.TempDir()
	for round, killAfter := range []int{30, 60} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MEMEX_CRASH_WRITER="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := map[int]memex.ID{}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			i, _ := strconv.Atoi(f[0])
			id, err := memex.ParseID(f[1])
			if err != nil {
				t.Fatal(err)
			}
			acked[i] = id
			if len(acked) == killAfter {
				// Kill mid-stream: the writer is already inside its next Add.
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		cmd.Wait()
		if len(acked) < killAfter {
			t.Fatalf("round %d: writer stopped after %d entries: %s", round, len(acked), stderr.String())
		}

		s, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		ctx := context.Background()
		for i, id := range acked {
			got, err := s.ReadAll(ctx, id)
			if err != nil {
				t.Fatalf("round %d: acknowledged entry %d (%s) lost: %v", round, i, id, err)
			}
			if !bytes.Equal(got, crashBody(i)) {
				t.Fatalf("round %d: entry %d reads back different content", round, i)
			}
		}
		var problems []Problem
		if _, err := s.Verify(ctx, func(p Problem) { problems = append(problems, p) }); err != nil || len(problems) > 0 {
			t.Fatalf("round %d: verify after kill: %v %v", round, problems, err)
		}
		s.Close()
	}
}
