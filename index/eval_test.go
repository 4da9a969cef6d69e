package index

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/klauspost/compress/zstd"

	"github.com/memex-archive/memex"
)

// The retrieval check and the benchmarks over the shared corpora. None of
// them runs in the normal test suite (they are benchmarks); docs/search.md
// has the figures and the commands that reproduce them.

// contentOf serves docs' content by ID, as the archive would.
func contentOf(docs []Doc) func(context.Context, memex.ID) (io.ReadCloser, error) {
	m := make(map[memex.ID][]byte, len(docs))
	for _, d := range docs {
		m[d.Entry.ID] = d.Content
	}
	return func(_ context.Context, id memex.ID) (io.ReadCloser, error) {
		b, ok := m[id]
		if !ok {
			return nil, memex.ErrNotFound
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

// entryOf serves docs' metadata by ID, as the archive would.
func entryOf(docs []Doc) func(context.Context, memex.ID) (memex.Entry, error) {
	m := make(map[memex.ID]memex.Entry, len(docs))
	for _, d := range docs {
		m[d.Entry.ID] = d.Entry
	}
	return func(_ context.Context, id memex.ID) (memex.Entry, error) {
		e, ok := m[id]
		if !ok {
			return memex.Entry{}, memex.ErrNotFound
		}
		return e, nil
	}
}

// excerpted applies Excerpt to every doc's content, as catch-up does.
func excerpted(tb testing.TB, docs []Doc) []Doc {
	out := make([]Doc, len(docs))
	for i, d := range docs {
		c, err := Excerpt(bytes.NewReader(d.Content))
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = Doc{Entry: d.Entry, Content: c}
	}
	return out
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func contentBytes(docs []Doc) int64 {
	var n int64
	for _, d := range docs {
		n += int64(len(d.Content))
	}
	return n
}

// Chunks of a bulk load, as internal/catchup makes them (its
// chunkEntries and chunkBytes).
const (
	loadChunkEntries = 4096
	loadChunkBytes   = 16 << 20
)

// bulkLoad indexes docs into ix as `memex reindex` does: Reset, chunks
// added from four goroutines (each Add durable before it returns), then
// Compact, with the garbage collector's target raised as reindex raises
// it.
func bulkLoad(tb testing.TB, ix *Index, docs []Doc) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	if err := ix.Reset(); err != nil {
		tb.Fatal(err)
	}
	addParallel(tb, ix, docs)
	if err := ix.Compact(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// addParallel indexes docs in chunks from four goroutines, as catch-up
// does on two cores (two chunks per CPU).
func addParallel(tb testing.TB, ix *Index, docs []Doc) {
	var wg sync.WaitGroup
	next := make(chan []Doc)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for part := range next {
				if err := ix.Add(context.Background(), part...); err != nil {
					tb.Error(err)
				}
			}
		}()
	}
	start, size := 0, 0
	for i, d := range docs {
		size += len(d.Content) + len(d.Entry.Input) + 256
		if i+1-start == loadChunkEntries || size >= loadChunkBytes || i == len(docs)-1 {
			next <- docs[start : i+1]
			start, size = i+1, 0
		}
	}
	close(next)
	wg.Wait()
}

// defaultDoc is an entry as a naive bleve user would index it: every field
// under bleve's default mapping (standard analyzer, stored, term vectors,
// _all).
func defaultDoc(d Doc) map[string]any {
	return map[string]any{
		"summary": d.Entry.Summary, "content": string(d.Content), "input": d.Entry.Input,
		"tool": d.Entry.Tool, "kind": string(d.Entry.Kind), "agent": d.Entry.Agent,
		"project": d.Entry.Project, "session": d.Entry.Session,
	}
}

func buildDefault(tb testing.TB, dir string, docs []Doc) bleve.Index {
	bi, err := bleve.NewUsing(dir, bleve.NewIndexMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		tb.Fatal(err)
	}
	b := bi.NewBatch()
	size := 0
	for _, d := range docs {
		if err := b.Index(d.Entry.ID.String(), defaultDoc(d)); err != nil {
			tb.Fatal(err)
		}
		size += len(d.Content)
		if size > batchBytes {
			if err := bi.Batch(b); err != nil {
				tb.Fatal(err)
			}
			b.Reset()
			size = 0
		}
	}
	if err := bi.Batch(b); err != nil {
		tb.Fatal(err)
	}
	return bi
}

type rankStats struct {
	n, top1, partial int
	rr               float64
	lat              []time.Duration
}

func (s *rankStats) add(rank int, d time.Duration) {
	s.n++
	if rank == 1 {
		s.top1++
	}
	if rank > 0 {
		s.rr += 1 / float64(rank)
	}
	s.lat = append(s.lat, d)
}

func (s *rankStats) mrr() float64 { return s.rr / float64(s.n) }

func percentile(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	l := append([]time.Duration(nil), lat...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	k := int(float64(len(l)-1) * p)
	return l[k]
}

// BenchmarkRetrieval is the retrieval check: every tool call's command is
// the query, and its own entry should come first. Mean reciprocal rank
// (rank > 100 counts 0) for memex's mapping and query, beside bleve's
// default mapping with a match query on _all, indexed and queried in the
// same run. Run with -benchtime 1x.
func BenchmarkRetrieval(b *testing.B) {
	calls := loadCalls(b)
	raw := docsOf(calls, "corpora")
	docs := excerpted(b, raw)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()

		start, cpu := time.Now(), cpuTime()
		ix, err := Open(filepath.Join(dir, "memex"), &Options{Content: contentOf(raw), Entry: entryOf(raw), Timeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		bulkLoad(b, ix, docs)
		memexTook, memexCPU := time.Since(start), cpuTime()-cpu
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		memexSize := dirSize(filepath.Join(dir, "memex"))
		if ix, err = Open(filepath.Join(dir, "memex"), &Options{Content: contentOf(raw), Entry: entryOf(raw), Timeout: time.Second}); err != nil {
			b.Fatal(err)
		}

		start, cpu = time.Now(), cpuTime()
		def := buildDefault(b, filepath.Join(dir, "default"), docs)
		defTook, defCPU := time.Since(start), cpuTime()-cpu
		if err := def.Close(); err != nil {
			b.Fatal(err)
		}
		defSize := dirSize(filepath.Join(dir, "default"))
		if def, err = bleve.Open(filepath.Join(dir, "default")); err != nil {
			b.Fatal(err)
		}

		// Twins are entries with the same command and output (the same
		// `ls` in two sessions): no ranking can tell them apart.
		twins := map[memex.ID]string{}
		for _, d := range raw {
			twins[d.Entry.ID] = d.Entry.Input + "\x00" + string(d.Content)
		}
		var ms, ds, msTwins rankStats
		for k, d := range raw {
			q := calls[k].input
			t := time.Now()
			res, err := ix.Search(ctx, Query{Text: q, Literal: true, Limit: 100})
			el := time.Since(t)
			if err != nil {
				continue // a command with no words (e.g. only punctuation)
			}
			rank, same := 0, 0
			for r, h := range res.Hits {
				if same == 0 && twins[h.ID] == twins[d.Entry.ID] {
					same = r + 1
				}
				if h.ID == d.Entry.ID {
					rank = r + 1
					break
				}
			}
			if res.Partial {
				ms.partial++
			}
			ms.add(rank, el)
			msTwins.add(same, el)

			mq := bleve.NewMatchQuery(q)
			req := bleve.NewSearchRequestOptions(mq, 100, 0, false)
			t = time.Now()
			sr, err := def.SearchInContext(ctx, req)
			el = time.Since(t)
			rank = 0
			if err == nil {
				for r, h := range sr.Hits {
					if h.ID == d.Entry.ID.String() {
						rank = r + 1
						break
					}
				}
			}
			ds.add(rank, el)
		}
		rawDocs := raw
		raw := contentBytes(raw)
		fmt.Printf("\nretrieval check: %d tool calls from the corpora, %.1f MB of output (%.1f MB indexed after Excerpt)\n",
			len(calls), float64(raw)/1e6, float64(contentBytes(docs))/1e6)
		fmt.Printf("%-14s %6s %7s %8s %8s %11s %9s %9s %9s\n", "mapping", "MRR", "top-1", "index s", "CPU s", "MB/CPU-s", "size/raw", "p50", "p99")
		for _, r := range []struct {
			name      string
			s         *rankStats
			took, cpu time.Duration
			size      int64
		}{{"memex", &ms, memexTook, memexCPU, memexSize}, {"bleve default", &ds, defTook, defCPU, defSize}} {
			fmt.Printf("%-14s %6.3f %6.1f%% %8.2f %8.2f %11.1f %9.2f %9s %9s\n", r.name, r.s.mrr(),
				100*float64(r.s.top1)/float64(r.s.n), r.took.Seconds(), r.cpu.Seconds(), float64(raw)/1e6/r.cpu.Seconds(),
				float64(r.size)/float64(raw), percentile(r.s.lat, 0.5).Round(time.Microsecond),
				percentile(r.s.lat, 0.99).Round(time.Microsecond))
		}
		fmt.Printf("memex, counting a twin (same command and output) ranked first as found: MRR %.3f, top-1 %.1f%%\n",
			msTwins.mrr(), 100*float64(msTwins.top1)/float64(msTwins.n))
		zraw := zstdSize(b, rawDocs)
		fmt.Printf("archived content, each entry zstd-compressed as the archive does (no dedup, no metadata): %.2f MB (%.2f x raw)\n",
			float64(zraw)/1e6, float64(zraw)/float64(raw))
		if ms.partial > 0 {
			fmt.Printf("memex searches cut short by the one-second bound: %d\n", ms.partial)
		}
		b.ReportMetric(ms.mrr(), "MRR")
		b.ReportMetric(ds.mrr(), "MRR-default")
		ix.Close()
		def.Close()
	}
}

// BenchmarkIndexCorpora measures indexing throughput over the corpora's
// tool calls (excerpts already cut, as catch-up hands them over).
func BenchmarkIndexCorpora(b *testing.B) {
	docs := excerpted(b, docsOf(loadCalls(b), "corpora"))
	b.SetBytes(contentBytes(docs))
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "ix")
		ix, err := Open(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c := cpuTime()
		bulkLoad(b, ix, docs)
		cpu += cpuTime() - c
		b.StopTimer()
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric(float64(contentBytes(docs))*float64(b.N)/1e6/cpu.Seconds(), "MB/CPU-s")
}

// scaled repeats the corpora's calls until there are n entries, each copy
// in sessions of its own, IDs in order.
func scaled(tb testing.TB, n int) []Doc {
	calls := loadCalls(tb)
	out := make([]call, 0, n)
	for k := 0; len(out) < n; k++ {
		for _, c := range calls {
			if len(out) == n {
				break
			}
			c.session = fmt.Sprintf("%s~%d", c.session, k)
			out = append(out, c)
		}
	}
	return excerpted(tb, docsOf(out, "corpora"))
}

// searchQueries draws query sets from the corpora: two words of a command
// (plain words), three consecutive words of an output line ("phrase"),
// and a word with agent and tool filters.
func searchQueries(docs []Doc, n int) map[string][]Query {
	rng := rand.New(rand.NewSource(42))
	qs := map[string][]Query{}
	words := func(s string) []string {
		var out []string
		for _, w := range strings.Fields(s) {
			w = strings.Trim(w, `"'()[]{},;|&<>`)
			if len(w) >= 3 && !strings.ContainsAny(w, `":`) {
				out = append(out, w)
			}
		}
		return out
	}
	for len(qs["words"]) < n || len(qs["phrase"]) < n || len(qs["filter"]) < n {
		d := docs[rng.Intn(len(docs))]
		if ws := words(d.Entry.Input); len(ws) >= 2 && len(qs["words"]) < n {
			i := rng.Intn(len(ws) - 1)
			qs["words"] = append(qs["words"], Query{Text: ws[i] + " " + ws[i+1]})
			qs["filter"] = append(qs["filter"], Query{Text: ws[i], Agent: d.Entry.Agent, Tool: d.Entry.Tool})
		}
		lines := strings.Split(string(d.Content), "\n")
		// Three adjacent words of a line, each a plain word (a phrase
		// must be one as written).
		if fs := strings.Fields(lines[rng.Intn(len(lines))]); len(fs) >= 3 && len(qs["phrase"]) < n {
			i := rng.Intn(len(fs) - 2)
			if ws := words(strings.Join(fs[i:i+3], " ")); len(ws) == 3 && strings.Join(ws, " ") == strings.Join(fs[i:i+3], " ") {
				qs["phrase"] = append(qs["phrase"], Query{Text: `"` + strings.Join(ws, " ") + `"`})
			}
		}
	}
	return qs
}

// BenchmarkSearch100k measures search latency (p50, p99 per query class)
// over 100,000 entries made by repeating the corpora's tool calls, with
// snippets and phrase checks against the content as in real use. It also
// reports what building that index took. Run with -benchtime 1x.
func BenchmarkSearch100k(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	docs := scaled(b, n)
	dir := filepath.Join(b.TempDir(), "ix")
	ix, err := Open(dir, &Options{Content: contentOf(docs), Entry: entryOf(docs)})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	start, cpu := time.Now(), cpuTime()
	bulkLoad(b, ix, docs)
	took, cpu := time.Since(start), cpuTime()-cpu
	// Measure the index closed: open, it may still hold segments that a
	// merge has replaced.
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	if ix, err = Open(dir, &Options{Content: contentOf(docs), Entry: entryOf(docs)}); err != nil {
		b.Fatal(err)
	}
	cb := contentBytes(docs)
	fmt.Printf("\nindexed %d entries, %.1f MB, in %.1f s (%.1f CPU s): %.1f MB/s, %.0f entries/s, %.1f MB per CPU-s; index %.1f MB (%.2f x content)\n",
		n, float64(cb)/1e6, took.Seconds(), cpu.Seconds(), float64(cb)/1e6/took.Seconds(), float64(n)/took.Seconds(),
		float64(cb)/1e6/cpu.Seconds(), float64(dirSize(dir))/1e6, float64(dirSize(dir))/float64(cb))
	qs := searchQueries(docs, 300)
	qs["hard"] = hardQueries
	for _, class := range []string{"words", "phrase", "filter", "hard"} {
		b.Run(class, func(b *testing.B) {
			var lat []time.Duration
			partial, empty := 0, 0
			for i := 0; i < b.N; i++ {
				for _, q := range qs[class] {
					t := time.Now()
					res, err := ix.Search(context.Background(), q)
					lat = append(lat, time.Since(t))
					if err != nil {
						b.Fatalf("%+v: %v", q, err)
					}
					if res.Partial {
						partial++
					}
					if len(res.Hits) == 0 {
						empty++
					}
				}
			}
			fmt.Printf("search %-7s p50 %8s  p99 %8s  max %8s  (%d queries, %d partial, %d without hits)\n", class,
				percentile(lat, 0.5).Round(time.Microsecond), percentile(lat, 0.99).Round(time.Microsecond),
				percentile(lat, 1).Round(time.Microsecond), len(lat), partial, empty)
			b.ReportMetric(float64(percentile(lat, 0.5).Microseconds()), "p50-µs")
			b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
		})
	}
}

// hardQueries are built to be slow: the commonest words of the corpora,
// all at once (no entry has them all, so the relaxed search runs after
// the strict one); phrases of common words in an order that occurs
// nowhere, so that every candidate is checked against its content; a
// phrase whose words are everywhere. They show the one-second bound.
var hardQueries = func() []Query {
	common := "the to a of and is in for if this that it with not file error test line return self def import from none true false all " +
		"be on at or by"
	var qs []Query
	for i := 0; i < 3; i++ {
		qs = append(qs,
			Query{Text: common},
			Query{Text: `"is the of a to and in file"`},
			Query{Text: `"self the return import def"`},
			Query{Text: `"the file"`},
			Query{Text: `"error in the test" "line of the file"`})
	}
	return qs
}()

// BenchmarkTokenize measures the code tokenizer alone over the corpora.
func BenchmarkTokenize(b *testing.B) {
	docs := excerpted(b, docsOf(loadCalls(b), "corpora"))
	b.SetBytes(contentBytes(docs))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range docs {
			(codeTokenizer{}).Tokenize(d.Content)
		}
	}
}

// zstdSize is the size of every doc's content compressed on its own with
// zstd at the archive's level: roughly what the archive stores of them.
func zstdSize(tb testing.TB, docs []Doc) int64 {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false))
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	var n int64
	var buf []byte
	for _, d := range docs {
		buf = enc.EncodeAll(d.Content, buf[:0])
		n += int64(min(len(buf), len(d.Content)) + 1)
	}
	return n
}
