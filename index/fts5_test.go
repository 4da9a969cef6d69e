package index

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkFTS5 indexes the same 100,000 entries as BenchmarkSearch100k
// into SQLite FTS5 (a content table plus an external-content FTS5 index,
// as most agent-memory tools do) with the native sqlite3 command, and runs
// the same query sets ranked by bm25, top 10, with a snippet. It skips
// when sqlite3 is not installed (apt-get install sqlite3). Run with
// -benchtime 1x.
func BenchmarkFTS5(b *testing.B) {
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("sqlite3 not installed")
	}
	n := 100000
	if testing.Short() {
		n = 10000
	}
	docs := scaled(b, n)
	dir := b.TempDir()
	csvPath := filepath.Join(dir, "entries.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		b.Fatal(err)
	}
	w := csv.NewWriter(bufio.NewWriterSize(f, 1<<20))
	for i, d := range docs {
		e := d.Entry
		_ = w.Write([]string{strconv.Itoa(i + 1), e.ID.String(), e.Project, e.Session, e.Agent, string(e.Kind),
			e.Tool, e.Input, e.Summary, string(d.Content)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		b.Fatal(err)
	}
	f.Close()

	db := filepath.Join(dir, "fts.db")
	script := `PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE entries(id INTEGER PRIMARY KEY, uid TEXT, project TEXT, session TEXT, agent TEXT, kind TEXT, tool TEXT, input TEXT, summary TEXT, content TEXT);
CREATE VIRTUAL TABLE fts USING fts5(summary, input, content, content='entries', content_rowid='id');
.import --csv ` + csvPath + ` entries
INSERT INTO fts(rowid, summary, input, content) SELECT id, summary, input, content FROM entries;
`
	start := time.Now()
	cmd := exec.Command(sqlite, db)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("sqlite3: %v\n%s", err, out)
	}
	took := time.Since(start)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	cb := contentBytes(docs)
	size := dirSize(dir) - fileSize(csvPath)
	fmt.Printf("\nfts5: indexed %d entries, %.1f MB, in %.1f s (%.1f CPU s): %.1f MB/s, %.0f entries/s, %.1f MB per CPU-s; database %.1f MB (%.2f x content)\n",
		n, float64(cb)/1e6, took.Seconds(), cpu.Seconds(), float64(cb)/1e6/took.Seconds(), float64(n)/took.Seconds(),
		float64(cb)/1e6/cpu.Seconds(), float64(size)/1e6, float64(size)/float64(cb))

	qs := searchQueries(docs, 300)
	for _, class := range []string{"words", "phrase", "filter"} {
		b.Run(class, func(b *testing.B) {
			var sb strings.Builder
			sb.WriteString(".timer on\n.output /dev/null\n")
			for _, q := range qs[class] {
				sb.WriteString(fts5SQL(q))
				sb.WriteString("\n")
			}
			var lat []time.Duration
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(sqlite, db)
				cmd.Stdin = strings.NewReader(sb.String())
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("sqlite3: %v\n%s", err, out)
				}
				for _, m := range runTime.FindAllSubmatch(out, -1) {
					s, _ := strconv.ParseFloat(string(m[1]), 64)
					lat = append(lat, time.Duration(s*float64(time.Second)))
				}
			}
			fmt.Printf("fts5 %-7s p50 %8s  p99 %8s  max %8s  (%d queries)\n", class,
				percentile(lat, 0.5).Round(time.Microsecond), percentile(lat, 0.99).Round(time.Microsecond),
				percentile(lat, 1).Round(time.Microsecond), len(lat))
			b.ReportMetric(float64(percentile(lat, 0.5).Microseconds()), "p50-µs")
			b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
		})
	}
}

var runTime = regexp.MustCompile(`Run Time: real ([0-9.]+)`)

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// fts5SQL translates a benchmark query into FTS5: each plain word quoted
// (FTS5 ANDs them), a phrase as one quoted string, filters as SQL.
func fts5SQL(q Query) string {
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	var match []string
	text := strings.TrimSpace(q.Text)
	if strings.HasPrefix(text, `"`) {
		match = append(match, quote(strings.Trim(text, `"`)))
	} else {
		for _, w := range strings.Fields(text) {
			match = append(match, quote(w))
		}
	}
	sqlStr := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	where := "fts MATCH " + sqlStr(strings.Join(match, " "))
	if q.Agent != "" {
		where += " AND e.agent = " + sqlStr(q.Agent)
	}
	if q.Tool != "" {
		where += " AND e.tool = " + sqlStr(q.Tool)
	}
	return fmt.Sprintf("SELECT e.uid, e.summary, snippet(fts, 2, '', '', '', 12) FROM fts JOIN entries e ON e.id = fts.rowid WHERE %s ORDER BY bm25(fts) LIMIT 10;", where)
}
