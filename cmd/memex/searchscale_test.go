//go:build linux

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/home"
)

// BenchmarkSearchScale compares query latency per query class, memex
// beside SQLite FTS5, on the same $MEMEX_SCALE_MB input (default 50) as
// BenchmarkIngestScale: memex ingest auto makes the store and index (timed,
// with the index's size), the FTS5 helper the database (content table and
// external-content FTS5 index over summary, input and content). The
// queries are drawn with a fixed seed from the entries' content and
// paths, 300 per class:
//
//   - term: one word;
//   - and: two words of one line (FTS5: both; memex: its plain words, which
//     rank entries holding both first);
//   - or: three words of different entries (FTS5: any, joined by OR; memex:
//     its plain words);
//   - phrase: three adjacent words of a line, quoted, and a few fixed
//     phrases of common words ("to and run");
//   - path: a path mentioned in an entry (FTS5: as a quoted phrase of its
//     words; memex: as typed).
//
// Words are lower-case letters only (3 to 20), so that both tokenizers see
// the same token. memex searches in this process, as `memex search` does
// (store and index opened once, snippets and hit metadata from the
// archive); FTS5 runs in one native sqlite3 process, top 10 by bm25 with
// a snippet, timed by its .timer (millisecond resolution). Each system
// runs every query once before the timed pass. Beside the latencies, the
// matches each counts: memex's Result.Total (exact when every candidate
// was checked, else the candidates'count, which for a phrase are the
// entries holding each pair of its words) and FTS5's count(*), and how
// many queries one finds nothing for and the other does. Needs sqlite3
// (apt-get install sqlite3); run with -benchtime 1x. With
// MEMEX_SCALE_KEEP=DIR (a directory not yet there) the home and the
// entries stay in DIR, for BenchmarkSearchClass.
func BenchmarkSearchScale(b *testing.B) {
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("sqlite3 not installed")
	}
	mb := 50
	if v := os.Getenv("MEMEX_SCALE_MB"); v != "" {
		if mb, err = strconv.Atoi(strings.Split(v, ",")[0]); err != nil || mb <= 0 {
			b.Fatalf("MEMEX_SCALE_MB: %q", v)
		}
	}
	for i := 0; i < b.N; i++ {
		searchScaleRun(b, sqlite, mb)
	}
}

// scaleQuery is one query of a class, in both systems' syntax.
type scaleQuery struct {
	memex, fts string
}

var scaleClasses = []string{"term", "and", "or", "phrase", "path"}

func searchScaleRun(b *testing.B, sqlite string, mb int) {
	in, raw := scaleCorpus(b, mb)
	work := b.TempDir()
	if keep := os.Getenv("MEMEX_SCALE_KEEP"); keep != "" {
		// Keep the home and entries for BenchmarkSearchClass.
		if err := os.Mkdir(keep, 0o755); err != nil {
			b.Fatal(err)
		}
		work = keep
	}
	entries := filepath.Join(work, "entries.bin")
	n, _, _ := extractEntries(b, in, entries)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\n== search at %d MB: %d bytes of transcripts, %d entries; load %s", mb, raw, n, load)

	h := filepath.Join(work, "h")
	ing := measure(b, nil, memexBin, "--home", h, "ingest", "auto", in, "--quiet", "--json")
	ixBytes := dirBytes(filepath.Join(h, "index"))
	fmt.Printf("memex ingest   %s  index %.3f B per raw byte on exit\n", ing, float64(ixBytes)/float64(raw))
	self, _ := os.Executable()
	ftsDir := filepath.Join(work, "fts")
	fts := measure(b, []string{"MEMEX_SCALE_HELPER=fts5", "MEMEX_SCALE_ENTRIES=" + entries, "MEMEX_SCALE_OUT=" + ftsDir},
		self, "-test.run=^TestScaleHelper$", "-test.count=1")
	fmt.Printf("SQLite FTS5    %s  database %.3f B per raw byte\n", fts, float64(dirBytes(ftsDir))/float64(raw))
	db := filepath.Join(ftsDir, "fts.db")

	qs := scaleQueries(b, entries, 300)

	ctx := context.Background()
	ix := openScaleIndex(b, h)
	if _, err := ix.Search(ctx, index.Query{Text: "error"}); err != nil {
		b.Fatal(err)
	}
	// Segment files merged away by the compaction at the end of the
	// ingest may outlive its process; bleve removes them once reopened.
	fmt.Printf("index after reopening: %.3f B per raw byte (%.3f on exit)\n", float64(dirBytes(filepath.Join(h, "index")))/float64(raw), float64(ixBytes)/float64(raw))
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Printf("queries: load %s", load)
	fmt.Printf("%-7s %6s | %9s %9s %9s %5s | %9s %9s %9s | %10s %10s | %s\n", "class", "n", "memex p50", "p99", "max", "cut",
		"FTS5 p50", "p99", "max", "memex hits", "FTS5 hits", "none found: memex / FTS5 / both")
	for _, class := range scaleClasses {
		run := func() ([]time.Duration, []uint64, int) {
			var lat []time.Duration
			var totals []uint64
			cut := 0
			for _, q := range qs[class] {
				t0 := time.Now()
				res, err := ix.Search(ctx, index.Query{Text: q.memex, Limit: 10})
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatalf("memex %q: %v", q.memex, err)
				}
				if res.Partial {
					cut++
				}
				totals = append(totals, res.Total)
			}
			return lat, totals, cut
		}
		run() // warm
		lat, totals, cut := run()
		ftsLat := ftsTimes(b, sqlite, db, qs[class], 2)
		counts := ftsCounts(b, sqlite, db, qs[class])
		var mSum, fSum uint64
		var mNone, fNone, both int
		for i := range totals {
			mSum += totals[i]
			fSum += counts[i]
			switch {
			case totals[i] == 0 && counts[i] == 0:
				both++
			case totals[i] == 0:
				mNone++
			case counts[i] == 0:
				fNone++
			}
		}
		fmt.Printf("%-7s %6d | %9s %9s %9s %5d | %9s %9s %9s | %10d %10d | %d / %d / %d\n", class, len(lat),
			ms(percentileOf(lat, 0.5)), ms(percentileOf(lat, 0.99)), ms(percentileOf(lat, 1)), cut,
			ms(percentileOf(ftsLat, 0.5)), ms(percentileOf(ftsLat, 0.99)), ms(percentileOf(ftsLat, 1)),
			mSum, fSum, mNone, fNone, both)
		b.ReportMetric(float64(percentileOf(lat, 0.99).Microseconds())/1000, class+"-p99-ms")
		b.ReportMetric(float64(percentileOf(ftsLat, 0.99).Microseconds())/1000, class+"-fts5-p99-ms")
		if class == "phrase" {
			for i, q := range qs[class] {
				if i >= len(qs[class])-len(commonPhrases) {
					fmt.Printf("  %-28s memex %7d  FTS5 %7d  (%s)\n", q.memex, totals[i], counts[i], ms(lat[i]))
				}
			}
		}
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// commonPhrases end the phrase class: phrases of words that nearly every
// entry holds, in and out of order.
var commonPhrases = []string{"to and run", "in the", "of the file", "no such file or directory", "if err != nil", "is not defined"}

var letterWord = regexp.MustCompile(`^[a-z]{3,20}$`)

// scaleQueries draws each class's queries from the entries (see
// BenchmarkSearchScale).
func scaleQueries(b *testing.B, entries string, per int) map[string][]scaleQuery {
	type line struct{ words []string }
	var lines []line
	var paths []string
	var e int
	err := readScaleEntries(entries, func(se scaleEntry) error {
		e++
		if e%7 != 0 { // every seventh entry is enough to draw from
			return nil
		}
		content := se.Content
		if len(content) > 64<<10 {
			content = content[:64<<10]
		}
		for _, l := range strings.Split(string(content), "\n") {
			var ws []string
			for _, f := range strings.Fields(l) {
				ws = append(ws, f)
			}
			if len(ws) >= 3 {
				lines = append(lines, line{ws})
			}
		}
		for _, p := range index.Paths(se.Input, content) {
			if strings.Contains(p, "/") {
				paths = append(paths, p)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	word := func() string {
		for {
			l := lines[r.IntN(len(lines))]
			if w := l.words[r.IntN(len(l.words))]; letterWord.MatchString(w) {
				return w
			}
		}
	}
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	out := map[string][]scaleQuery{}
	for len(out["term"]) < per {
		w := word()
		out["term"] = append(out["term"], scaleQuery{w, quote(w)})
	}
	for len(out["and"]) < per {
		l := lines[r.IntN(len(lines))]
		i, j := r.IntN(len(l.words)), r.IntN(len(l.words))
		a, c := l.words[i], l.words[j]
		if i != j && a != c && letterWord.MatchString(a) && letterWord.MatchString(c) {
			out["and"] = append(out["and"], scaleQuery{a + " " + c, quote(a) + " " + quote(c)})
		}
	}
	for len(out["or"]) < per {
		ws := []string{word(), word(), word()}
		var fq []string
		for _, w := range ws {
			fq = append(fq, quote(w))
		}
		out["or"] = append(out["or"], scaleQuery{strings.Join(ws, " "), strings.Join(fq, " OR ")})
	}
	for len(out["phrase"]) < per-len(commonPhrases) {
		l := lines[r.IntN(len(lines))]
		i := r.IntN(len(l.words) - 2)
		ph := l.words[i : i+3]
		if letterWord.MatchString(ph[0]) && letterWord.MatchString(ph[1]) && letterWord.MatchString(ph[2]) {
			s := strings.Join(ph, " ")
			out["phrase"] = append(out["phrase"], scaleQuery{`"` + s + `"`, quote(s)})
		}
	}
	for _, s := range commonPhrases {
		out["phrase"] = append(out["phrase"], scaleQuery{`"` + s + `"`, quote(s)})
	}
	// Paths: every tenth of them over 128 bytes when there are such.
	var long []string
	for _, p := range paths {
		if len(p) > 128 {
			long = append(long, p)
		}
	}
	for len(out["path"]) < per {
		p := paths[r.IntN(len(paths))]
		if len(long) > 0 && len(out["path"])%10 == 9 {
			p = long[r.IntN(len(long))]
		}
		out["path"] = append(out["path"], scaleQuery{p, quote(p)})
	}
	return out
}

func ftsMatch(q scaleQuery) string { return "'" + strings.ReplaceAll(q.fts, "'", "''") + "'" }

// ftsTimes runs the queries in one sqlite3 process rounds times and
// returns the last round's latencies, by sqlite3's timer.
func ftsTimes(b *testing.B, sqlite, db string, qs []scaleQuery, rounds int) []time.Duration {
	var sb strings.Builder
	sb.WriteString(".timer on\n.output /dev/null\n")
	for _, q := range qs {
		fmt.Fprintf(&sb, "SELECT e.id, e.summary, snippet(fts, 2, '', '', '', 12) FROM fts JOIN entries e ON e.id = fts.rowid WHERE fts MATCH %s ORDER BY bm25(fts) LIMIT 10;\n", ftsMatch(q))
	}
	var lat []time.Duration
	for round := 0; round < rounds; round++ {
		out := sqlite3(b, sqlite, db, sb.String())
		lat = lat[:0]
		for _, m := range sqliteRunTime.FindAllSubmatch(out, -1) {
			s, _ := strconv.ParseFloat(string(m[1]), 64)
			lat = append(lat, time.Duration(s*float64(time.Second)))
		}
		if len(lat) != len(qs) {
			b.Fatalf("sqlite3 timed %d of %d queries:\n%s", len(lat), len(qs), out)
		}
	}
	return lat
}

// sqlite3 runs script in the sqlite3 command on db and returns what it
// printed.
func sqlite3(b *testing.B, sqlite, db, script string) []byte {
	cmd := exec.Command(sqlite, db)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("sqlite3: %v\n%s", err, out)
	}
	return out
}

var sqliteRunTime = regexp.MustCompile(`Run Time: real ([0-9.]+)`)

// ftsCounts returns each query's number of matches in FTS5.
func ftsCounts(b *testing.B, sqlite, db string, qs []scaleQuery) []uint64 {
	var sb strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&sb, "SELECT count(*) FROM fts WHERE fts MATCH %s;\n", ftsMatch(q))
	}
	out := sqlite3(b, sqlite, db, sb.String())
	var counts []uint64
	for _, f := range strings.Fields(string(out)) {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			b.Fatalf("sqlite3 count: %q\n%s", f, out)
		}
		counts = append(counts, n)
	}
	if len(counts) != len(qs) {
		b.Fatalf("sqlite3 counted %d of %d queries", len(counts), len(qs))
	}
	return counts
}

// BenchmarkSearchClass runs one class's queries ($MEMEX_SCALE_CLASS,
// default path) of BenchmarkSearchScale against the home it kept in
// $MEMEX_SCALE_KEEP, memex only: each iteration is the class's 300
// queries, once each, after one warming pass. For profiling a class
// (-cpuprofile) and for measuring a change on the same home and queries.
func BenchmarkSearchClass(b *testing.B) {
	dir := os.Getenv("MEMEX_SCALE_KEEP")
	if dir == "" {
		b.Skip("MEMEX_SCALE_KEEP not set")
	}
	class := os.Getenv("MEMEX_SCALE_CLASS")
	if class == "" {
		class = "path"
	}
	qs := scaleQueries(b, filepath.Join(dir, "entries.bin"), 300)[class]
	if len(qs) == 0 {
		b.Fatalf("no class %q", class)
	}
	ctx := context.Background()
	ix := openScaleIndex(b, filepath.Join(dir, "h"))
	type timed struct {
		q     string
		took  time.Duration
		total uint64
	}
	var last []timed
	search := func() []time.Duration {
		lat := make([]time.Duration, 0, len(qs))
		last = last[:0]
		for _, q := range qs {
			t0 := time.Now()
			res, err := ix.Search(ctx, index.Query{Text: q.memex, Limit: 10})
			if err != nil {
				b.Fatalf("%q: %v", q.memex, err)
			}
			lat = append(lat, time.Since(t0))
			last = append(last, timed{q.memex, lat[len(lat)-1], res.Total})
		}
		return lat
	}
	search()
	b.ResetTimer()
	var lat []time.Duration
	for i := 0; i < b.N; i++ {
		lat = append(lat, search()...)
	}
	b.StopTimer()
	// The slowest queries of the last pass, for looking into.
	sort.Slice(last, func(i, j int) bool { return last[i].took > last[j].took })
	for _, t := range last[:min(5, len(last))] {
		fmt.Printf("  %s  total %d  %.80s\n", ms(t.took), t.total, t.q)
	}
	b.ReportMetric(float64(percentileOf(lat, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentileOf(lat, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(percentileOf(lat, 1).Microseconds())/1000, "max-ms")
}

// openScaleIndex opens the index of the home at h for searching, until
// b ends.
func openScaleIndex(b *testing.B, h string) *index.Index {
	b.Helper()
	hm, err := home.Open(context.Background(), h, home.Options{MustExist: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { hm.Close() })
	ix, err := hm.Index()
	if err != nil {
		b.Fatal(err)
	}
	return ix
}
