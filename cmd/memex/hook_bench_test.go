//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/spool"
)

// hookPayload is a Claude Code PostToolUse of a Bash call whose output is
// about 1 KB.
func hookPayload(cwd string, i int) []byte {
	out := strings.Repeat(fmt.Sprintf("ok   example.com/pkg/mod%03d  0.%03ds  (call %d)\n", i%100, i%1000, i), 30)[:1000]
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": "bench-hooks", "cwd": cwd,
		"tool_name": "Bash", "tool_input": map[string]string{"command": fmt.Sprintf("go test ./pkg/%d/...", i)},
		"tool_use_id":   fmt.Sprintf("toolu_bench_%06d", i),
		"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
	return b
}

// hookProcessCPUOf runs one hook process of bin and returns its wall and
// CPU time.
func hookProcessCPUOf(b *testing.B, bin, home string, payload []byte) (time.Duration, time.Duration) {
	cmd := exec.Command(bin, "--home", home, "hook", "claude-code", "PostToolUse")
	cmd.Stdin = bytes.NewReader(payload)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		b.Errorf("hook: %v %s", err, out)
		return time.Since(t0), 0
	}
	return time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// hookBinary is cmd/memex-hook, built once beside memexBin (as go install
// ./cmd/... lays them out: it hands over to the memex beside it).
func hookBinary(b *testing.B) string {
	hookBinOnce.Do(func() { hookBin, hookBinErr = buildHookBin(filepath.Dir(memexBin)) })
	if hookBinErr != nil {
		b.Fatal(hookBinErr)
	}
	return hookBin
}

// buildHookBin builds cmd/memex-hook into dir.
func buildHookBin(dir string) (string, error) {
	bin := filepath.Join(dir, "memex-hook")
	out, err := exec.Command("go", "build", "-o", bin, "../memex-hook").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building memex-hook: %v %s", err, out)
	}
	return bin, nil
}

var (
	hookBinOnce sync.Once
	hookBin     string
	hookBinErr  error
)

// adoptDrains makes this process the subreaper of its descendants: the
// drains memex-hook starts and does not wait for become its children when
// their hook exits, so that reapDrains can wait for them and count their
// CPU.
func adoptDrains(b *testing.B) {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		b.Fatalf("PR_SET_CHILD_SUBREAPER: %v", errno)
	}
}

// reapDrains waits for every process this one adopted and returns the CPU
// they used. No other child of this process may be running.
func reapDrains() time.Duration {
	var cpu time.Duration
	for {
		var ru syscall.Rusage
		var st syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &st, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return cpu
		}
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}

// hookBins are the binaries the hook benchmarks run side by side,
// alternately: another memex (MEMEX_BENCH_BASELINE) when set, this build's
// memex hook, and this build's memex-hook.
func hookBins(b *testing.B) []struct{ name, path string } {
	adoptDrains(b)
	bins := []struct{ name, path string }{{"memex hook", memexBin}, {"memex-hook", hookBinary(b)}}
	if base := os.Getenv("MEMEX_BENCH_BASELINE"); base != "" {
		bins = append([]struct{ name, path string }{{"baseline", base}}, bins...)
	}
	return bins
}

// countEntries archives what is spooled (a writable open drains the
// spool) and returns the number of entries in home's store.
func countEntries(b *testing.B, home string) int {
	out, err := exec.Command(memexBin, "--home", home, "reindex", "--json").CombinedOutput()
	if err != nil {
		b.Fatalf("reindex: %v %s", err, out)
	}
	var st struct {
		Indexed int `json:"indexed"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		b.Fatalf("reindex: %v %s", err, out)
	}
	return st.Indexed
}

func percentileOf(lat []time.Duration, p float64) time.Duration {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat[min(len(lat)-1, int(float64(len(lat))*p))]
}

// BenchmarkHookCLI times one `memex hook claude-code PostToolUse` process
// of a 1 KB output at a time, into a store of 300 entries, beside `memex
// --version` (process start and exit alone), and reports the CPU time of
// each (user + system, mean; a hook's CPU includes its children's, and the
// drain memex-hook starts and leaves, which this process adopts and
// waits for before the next hook). memex-hook
// runs too (its hook, and its --version), and with MEMEX_BENCH_BASELINE
// (see BenchmarkConcurrentHooks) the other binary, alternately; the
// metrics are memex-hook's.
func BenchmarkHookCLI(b *testing.B) {
	type bin struct {
		name, path, home  string
		hook, start       []time.Duration
		hookCPU, startCPU time.Duration
	}
	var bins []*bin
	for _, x := range hookBins(b) {
		bins = append(bins, &bin{name: x.name, path: x.path})
	}
	for _, x := range bins {
		x.home = b.TempDir()
		for i := 0; i < 300; i++ {
			hookProcessCPUOf(b, x.path, x.home, hookPayload(x.home, i))
			reapDrains()
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, x := range bins {
			d, c := hookProcessCPUOf(b, x.path, x.home, hookPayload(x.home, 300+i))
			x.hook, x.hookCPU = append(x.hook, d), x.hookCPU+c+reapDrains()
			cmd := exec.Command(x.path, "--version")
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
			x.start = append(x.start, time.Since(t0))
			x.startCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	b.StopTimer()
	load, _ := os.ReadFile("/proc/loadavg")
	for _, x := range bins {
		n := time.Duration(len(x.hook))
		fmt.Printf("\n%s: hook p50 %v p99 %v, CPU %v; --version p50 %v, CPU %v; load %s", x.name,
			percentileOf(x.hook, 0.5), percentileOf(x.hook, 0.99), x.hookCPU/n, percentileOf(x.start, 0.5), x.startCPU/n, strings.TrimSpace(string(load)))
	}
	fmt.Println()
	x := bins[len(bins)-1] // memex-hook
	n := float64(len(x.hook))
	b.ReportMetric(float64(percentileOf(x.hook, 0.5).Microseconds())/1000, "hook-p50-ms")
	b.ReportMetric(float64(percentileOf(x.start, 0.5).Microseconds())/1000, "start-p50-ms")
	b.ReportMetric(x.hookCPU.Seconds()*1000/n, "hook-cpu-ms")
	b.ReportMetric(x.startCPU.Seconds()*1000/n, "start-cpu-ms")
}

// BenchmarkConcurrentHooks starts 100 PostToolUse hook processes at once
// (no server), each with its own 1 KB output, and times until the last one
// exits: an exited hook has acknowledged its entry (archived or spooled).
// Then it waits for the drains memex-hook started and left (their CPU is
// counted with the hooks'), and checks that none is lost: all 100 are in
// the store once what was spooled is drained.
//
// MEMEX_BENCH_BASELINE names another memex binary (say, one built from
// main) to run beside this build, alternately in each iteration, so that
// both figures come from the same moment of a shared machine.
func BenchmarkConcurrentHooks(b *testing.B) {
	bins := hookBins(b)
	rates := map[string][]float64{}
	for i := 0; i < b.N; i++ {
		for _, bin := range bins {
			rate := concurrentHooks(b, bin.path)
			fmt.Printf(" (%s)", bin.name)
			rates[bin.name] = append(rates[bin.name], rate)
		}
	}
	fmt.Println()
	for _, bin := range bins {
		fmt.Printf("%s: entries/s %.0f\n", bin.name, rates[bin.name])
	}
	b.ReportMetric(mean(rates["memex-hook"]), "entries/s")
	b.ReportMetric(mean(rates["memex hook"]), "memex-entries/s")
	if len(bins) > 2 {
		b.ReportMetric(mean(rates["baseline"]), "baseline-entries/s")
	}
}

// BenchmarkSpoolingHook is a hook that only spools: this process holds a
// flight in the spool (as another hook would), so that no hook is the last
// and none drains. One hook of each binary at a time, alternately, each
// into a home of its own; it reports the CPU per hook (user + system).
// The shell recipe in docs/performance.md (flock -s spool/.inflight) is
// the same measure.
func BenchmarkSpoolingHook(b *testing.B) {
	bins := hookBins(b)
	homes, cpu := make([]string, len(bins)), make([]time.Duration, len(bins))
	for i := range bins {
		homes[i] = b.TempDir()
		fl, err := spool.Enter(homes[i])
		if err != nil {
			b.Fatal(err)
		}
		defer fl.Leave()
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i, x := range bins {
			_, c := hookProcessCPUOf(b, x.path, homes[i], hookPayload(homes[i], n))
			cpu[i] += c
		}
	}
	b.StopTimer()
	load, _ := os.ReadFile("/proc/loadavg")
	for i, x := range bins {
		left, _ := spool.Leftover(homes[i])
		fmt.Printf("\n%s: CPU per spooling hook %.1f ms, %d items spooled; load %s", x.name,
			cpu[i].Seconds()*1000/float64(b.N), len(left), strings.TrimSpace(string(load)))
		if len(left) != b.N {
			b.Errorf("%s: %d items spooled of %d", x.name, len(left), b.N)
		}
	}
	fmt.Println()
	b.ReportMetric(cpu[len(bins)-1].Seconds()*1000/float64(b.N), "hook-cpu-ms")
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(max(1, len(v)))
}

// concurrentHooks runs 100 hooks of bin at once into a new home and
// returns the entries acknowledged per second; it fails b when one is
// lost.
func concurrentHooks(b *testing.B, bin string) float64 {
	const hooks = 100
	home := b.TempDir()
	var wg sync.WaitGroup
	lat, cpu := make([]time.Duration, hooks), make([]time.Duration, hooks)
	t0 := time.Now()
	for h := 0; h < hooks; h++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat[h], cpu[h] = hookProcessCPUOf(b, bin, home, hookPayload(home, h))
		}()
	}
	wg.Wait()
	took := time.Since(t0)
	// The drains memex-hook started and left: their CPU is the burst's.
	cpuSum := reapDrains()
	for _, c := range cpu {
		cpuSum += c
	}
	load, _ := os.ReadFile("/proc/loadavg")
	spooled, _ := filepath.Glob(filepath.Join(home, "spool", "*.json"))
	n := countEntries(b, home)
	fmt.Printf("\n%d concurrent hooks: all acknowledged in %v (%.0f entries/s), p50 %v, p99 %v, %.2f CPU-s in all (%.1f ms each); %d spool files left; %d entries after the drain; load %s",
		hooks, took.Round(time.Millisecond), hooks/took.Seconds(), percentileOf(lat, 0.5).Round(time.Millisecond),
		percentileOf(lat, 0.99).Round(time.Millisecond), cpuSum.Seconds(), cpuSum.Seconds()*1000/hooks, len(spooled), n, strings.TrimSpace(string(load)))
	if n != hooks {
		b.Fatalf("%s: %d of %d entries archived", bin, n, hooks)
	}
	return hooks / took.Seconds()
}

// BenchmarkAddPhases splits what one hook or `memex add` of a 1 KB entry
// does after process start, in this process, into a store of 1,000
// entries: taking the lock and opening the store (home.Open), opening the
// index (which `memex add` and a hook do not do; a search does), the add
// with its synced commit, and closing.
func BenchmarkAddPhases(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	h, err := home.Open(ctx, dir, home.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := h.Store.Add(ctx, memex.Entry{Kind: memex.KindTool, Tool: "bash", Session: "s"}, bytes.NewReader(hookPayload(dir, i))); err != nil {
			b.Fatal(err)
		}
	}
	h.Close()
	var open, ixOpen, add, closing []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		h, err := home.Open(ctx, dir, home.Options{Wait: -1})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := h.Index(); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		body := hookPayload(dir, 1000+i)[:1000]
		if _, err := h.Store.Add(ctx, memex.Entry{Kind: memex.KindTool, Tool: "bash", Session: "s", Input: "go test"}, bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if err := h.Close(); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		open, ixOpen, add, closing = append(open, t1.Sub(t0)), append(ixOpen, t2.Sub(t1)), append(add, t3.Sub(t2)), append(closing, t4.Sub(t3))
	}
	for _, p := range []struct {
		name string
		d    []time.Duration
	}{{"store-open", open}, {"index-open", ixOpen}, {"add-commit", add}, {"close", closing}} {
		b.ReportMetric(float64(percentileOf(p.d, 0.5).Microseconds())/1000, p.name+"-p50-ms")
	}
}
