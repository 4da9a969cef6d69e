//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/klauspost/compress/zstd"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/summarize"
	_ "modernc.org/sqlite"
)

// BenchmarkIngestScale runs, side by side on the same input, each in a
// process of its own timed from start to exit with its CPU time and peak
// RSS (getrusage, as /usr/bin/time -v reports them):
//
//   - memex ingest auto DIR (archive and index: every entry is searchable
//     when it exits);
//   - memex ingest auto DIR --no-index, then memex reindex of that store,
//     then, into another store ingested the same way, the catch-up a search
//     runs first (memex search);
//   - SQLite FTS5 (modernc.org/sqlite, the driver memex links): a content
//     table and an external-content FTS5 index over summary, input and
//     content, WAL, synchronous=NORMAL, 64 entries per transaction;
//   - zstd + Pebble alone: each entry's body zstd-compressed (bodies over
//     4 KiB; smaller ones raw, as the archive keeps them) and its metadata
//     JSON, in Pebble with the archive's block settings, 64 entries per
//     unsynced batch, one sync at the end.
//
// FTS5 and the floor read the entries memex's own parsers extract from the
// input (redacted, with their summaries), written once to a file that is
// not timed; memex reads the transcripts themselves, parsing included.
// MB/s is of transcript bytes, the same for every row.
//
// Input sizes in megabytes: $MEMEX_SCALE_MB, comma-separated (default 50);
// the input is made by scaleCorpus (scale_gen_test.go). Run with
// -benchtime 1x; cmd/memex/scale.sh runs the sizes docs/performance.md
// reports.
func BenchmarkIngestScale(b *testing.B) {
	sizes := []int{50}
	if v := os.Getenv("MEMEX_SCALE_MB"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("MEMEX_SCALE_MB: %q is not a positive number", f)
			}
			sizes = append(sizes, n)
		}
	}
	for _, mb := range sizes {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				scaleRun(b, mb)
			}
		})
	}
}

// measured is one process's cost.
type measured struct {
	wall, cpu time.Duration
	rss       int64 // peak, bytes
	out       []byte
}

func (m measured) String() string {
	return fmt.Sprintf("%7.1f s wall %7.1f s CPU %6.0f MB RSS", m.wall.Seconds(), m.cpu.Seconds(), float64(m.rss)/1e6)
}

func measure(b *testing.B, env []string, name string, args ...string) measured {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, errb.Bytes())
	}
	m := measured{wall: time.Since(t0), out: out.Bytes()}
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = ru.Maxrss * 1024
	}
	return m
}

func scaleRun(b *testing.B, mb int) {
	in, raw := scaleCorpus(b, mb)
	work := b.TempDir()
	entries := filepath.Join(work, "entries.bin")
	n, bodyBytes, distinct := extractEntries(b, in, entries)
	uptime, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\n== %d MB: %d bytes of transcripts in %s; %d entries, %d body bytes, %d distinct bodies; load %s",
		mb, raw, in, n, bodyBytes, distinct, uptime)

	mbps := func(m measured) float64 { return float64(raw) / 1e6 / m.wall.Seconds() }
	self, _ := os.Executable()
	helper := func(kind, dir string) measured {
		return measure(b, []string{"MEMEX_SCALE_HELPER=" + kind, "MEMEX_SCALE_ENTRIES=" + entries, "MEMEX_SCALE_OUT=" + dir},
			self, "-test.run=^TestScaleHelper$", "-test.count=1")
	}

	h1, h2, h3 := filepath.Join(work, "h1"), filepath.Join(work, "h2"), filepath.Join(work, "h3")
	full := measure(b, nil, memexBin, "--home", h1, "ingest", "auto", in, "--quiet", "--json")
	var rep struct {
		Added   int `json:"added"`
		Present int `json:"present"`
		Indexed int `json:"indexed"`
	}
	if err := json.Unmarshal(full.out, &rep); err != nil {
		b.Fatalf("ingest report: %v\n%s", err, full.out)
	}
	if rep.Indexed != rep.Added {
		b.Fatalf("ingest indexed %d of %d entries", rep.Indexed, rep.Added)
	}
	noIndex := measure(b, nil, memexBin, "--home", h2, "ingest", "auto", in, "--quiet", "--json", "--no-index")
	reindex := measure(b, nil, memexBin, "--home", h2, "reindex", "--json")
	measure(b, nil, memexBin, "--home", h3, "ingest", "auto", in, "--quiet", "--json", "--no-index")
	catchUp := measure(b, nil, memexBin, "--home", h3, "search", "error", "--limit", "1", "--json")
	fts := helper("fts5", filepath.Join(work, "fts"))
	floor := helper("floor", filepath.Join(work, "floor"))

	store, index := dirBytes(filepath.Join(h1, "store")), dirBytes(filepath.Join(h1, "index"))
	fmt.Printf("memex ingest          %s %6.1f MB/s  (%.2fx FTS5)  %d added, %d present, %d indexed\n", full, mbps(full), mbps(full)/mbps(fts), rep.Added, rep.Present, rep.Indexed)
	fmt.Printf("memex ingest --no-index %s %6.1f MB/s  (%.2fx the floor's time)\n", noIndex, mbps(noIndex), noIndex.wall.Seconds()/floor.wall.Seconds())
	fmt.Printf("memex reindex         %s\n", reindex)
	fmt.Printf("catch-up (search)     %s\n", catchUp)
	fmt.Printf("SQLite FTS5           %s %6.1f MB/s  database %.2f B per raw byte\n", fts, mbps(fts), float64(dirBytes(filepath.Join(work, "fts")))/float64(raw))
	fmt.Printf("zstd + Pebble         %s %6.1f MB/s\n", floor, mbps(floor))
	fmt.Printf("memex on disk: store %.2f + index %.2f B per raw byte\n", float64(store)/float64(raw), float64(index)/float64(raw))
	b.ReportMetric(mbps(full)/mbps(fts), "x-fts5")
	b.ReportMetric(noIndex.wall.Seconds()/floor.wall.Seconds(), "x-floor-time")
	b.ReportMetric(float64(full.rss)/1e6, "ingest-MB-rss")
	b.ReportMetric(float64(index)/float64(raw), "index-B/raw-B")
}

func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// scaleEntry is one extracted entry as the baselines store it.
type scaleEntry struct {
	Project, Session, Agent, Kind, Tool, Input, Summary string
	Content                                             []byte
}

var scaleFields = 8

func writeScaleEntry(w *bufio.Writer, e scaleEntry) {
	for _, f := range [][]byte{[]byte(e.Project), []byte(e.Session), []byte(e.Agent), []byte(e.Kind), []byte(e.Tool), []byte(e.Input), []byte(e.Summary), e.Content} {
		var l [binary.MaxVarintLen64]byte
		w.Write(l[:binary.PutUvarint(l[:], uint64(len(f)))])
		w.Write(f)
	}
}

func readScaleEntries(path string, fn func(scaleEntry) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var fields [8][]byte
	for {
		for i := 0; i < scaleFields; i++ {
			l, err := binary.ReadUvarint(r)
			if err == io.EOF && i == 0 {
				return nil
			}
			if err != nil {
				return err
			}
			fields[i] = make([]byte, l)
			if _, err := io.ReadFull(r, fields[i]); err != nil {
				return err
			}
		}
		if err := fn(scaleEntry{string(fields[0]), string(fields[1]), string(fields[2]), string(fields[3]),
			string(fields[4]), string(fields[5]), string(fields[6]), fields[7]}); err != nil {
			return err
		}
	}
}

// captureSink is an ingest.Sink that writes what ingest would add to a
// file of scale entries, with the summary the archive would derive.
type captureSink struct {
	mu       sync.Mutex
	w        *bufio.Writer
	n        int
	bytes    int64
	distinct map[[32]byte]bool
}

func (c *captureSink) Add(_ context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return e, err
	}
	if e.Summary == "" {
		in := summarize.Input{Kind: e.Kind, Tool: e.Tool, Input: e.Input, Exit: e.Exit, Bytes: int64(len(data)),
			Lines: int64(bytes.Count(data, []byte{'\n'}))}
		in.Head = data[:min(len(data), summarize.HeadLimit)]
		if len(data) > summarize.HeadLimit {
			in.Tail = data[len(data)-min(len(data), summarize.TailLimit):]
		}
		e.Summary = summarize.Entry(in)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	writeScaleEntry(c.w, scaleEntry{e.Project, e.Session, e.Agent, string(e.Kind), e.Tool, e.Input, e.Summary, data})
	c.n++
	c.bytes += int64(len(data))
	c.distinct[sha256.Sum256(data)] = true
	return e, nil
}

func (c *captureSink) Lookup(context.Context, string, string) (memex.ID, error) {
	return memex.ID{}, memex.ErrNotFound
}
func (c *captureSink) GetState(context.Context, string) ([]byte, error) {
	return nil, memex.ErrNotFound
}
func (c *captureSink) SetState(context.Context, string, []byte) error { return nil }

// extractEntries parses the transcripts under dir as `memex ingest auto`
// does and writes the entries to path.
func extractEntries(b *testing.B, dir, path string) (n int, bodyBytes int64, distinct int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	c := &captureSink{w: bufio.NewWriterSize(f, 1<<20), distinct: map[[32]byte]bool{}}
	if _, err := ingest.Run(context.Background(), c, ingest.Options{Format: ingest.Auto, Paths: []string{dir}, Policy: service.Policy}); err != nil {
		b.Fatal(err)
	}
	if err := c.w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return c.n, c.bytes, len(c.distinct)
}

// TestScaleHelper is the baselines' process (BenchmarkIngestScale starts
// it); it does nothing unless MEMEX_SCALE_HELPER names one.
func TestScaleHelper(t *testing.T) {
	kind := os.Getenv("MEMEX_SCALE_HELPER")
	if kind == "" {
		t.Skip("run by BenchmarkIngestScale")
	}
	entries, out := os.Getenv("MEMEX_SCALE_ENTRIES"), os.Getenv("MEMEX_SCALE_OUT")
	var err error
	switch kind {
	case "fts5":
		err = loadFTS5(entries, out)
	case "floor":
		err = loadFloor(entries, out)
	default:
		err = fmt.Errorf("unknown helper %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
}

const scaleBatch = 64

func loadFTS5(entries, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "fts.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		"PRAGMA journal_mode=WAL",
		"PRAGMA synchronous=NORMAL",
		"CREATE TABLE entries(id INTEGER PRIMARY KEY, project TEXT, session TEXT, agent TEXT, kind TEXT, tool TEXT, input TEXT, summary TEXT, content TEXT)",
		"CREATE VIRTUAL TABLE fts USING fts5(summary, input, content, content='entries', content_rowid='id')",
	} {
		if _, err := db.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	var tx *sql.Tx
	var ins, fts *sql.Stmt
	id, inBatch := 0, 0
	commit := func() error {
		if tx == nil {
			return nil
		}
		err := tx.Commit()
		tx = nil
		return err
	}
	err = readScaleEntries(entries, func(e scaleEntry) error {
		if tx == nil {
			var err error
			if tx, err = db.Begin(); err != nil {
				return err
			}
			if ins, err = tx.Prepare("INSERT INTO entries VALUES(?,?,?,?,?,?,?,?,?)"); err != nil {
				return err
			}
			if fts, err = tx.Prepare("INSERT INTO fts(rowid, summary, input, content) VALUES(?,?,?,?)"); err != nil {
				return err
			}
			inBatch = 0
		}
		id++
		content := string(e.Content)
		if _, err := ins.Exec(id, e.Project, e.Session, e.Agent, e.Kind, e.Tool, e.Input, e.Summary, content); err != nil {
			return err
		}
		if _, err := fts.Exec(id, e.Summary, e.Input, content); err != nil {
			return err
		}
		if inBatch++; inBatch == scaleBatch {
			return commit()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := commit(); err != nil {
		return err
	}
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

func loadFloor(entries, dir string) error {
	po := &pebble.Options{MemTableSize: 8 << 20}
	po.Levels[0].BlockSize = archive.BlockSize
	po.ApplyCompressionSettings(func() pebble.DBCompressionSettings {
		return pebble.UniformDBCompressionSettings(block.ZstdCompression)
	})
	db, err := pebble.Open(dir, po)
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	var seq uint64
	batch := db.NewBatch()
	var buf []byte
	err = readScaleEntries(entries, func(e scaleEntry) error {
		seq++
		var k [9]byte
		binary.BigEndian.PutUint64(k[1:], seq)
		meta, _ := json.Marshal(struct {
			P, S, A, K, T, I, Sum string
		}{e.Project, e.Session, e.Agent, e.Kind, e.Tool, e.Input, e.Summary})
		k[0] = 'm'
		if err := batch.Set(k[:], meta, nil); err != nil {
			return err
		}
		k[0] = 'b'
		v := e.Content
		if len(v) > archive.InlineSize {
			buf = enc.EncodeAll(v, buf[:0])
			v = buf
		}
		if err := batch.Set(k[:], v, nil); err != nil {
			return err
		}
		if seq%scaleBatch == 0 {
			if err := batch.Commit(pebble.NoSync); err != nil {
				return err
			}
			batch = db.NewBatch()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := batch.Commit(pebble.Sync); err != nil {
		return err
	}
	return errors.Join(db.Close(), enc.Close())
}

// BenchmarkIngestRun runs `memex ingest auto` in this process on the
// first $MEMEX_SCALE_MB input (default 50), for a CPU profile of the whole
// import: go test -run '^$' -bench IngestRun -benchtime 1x -cpuprofile
// cpu.out ./cmd/memex. The no-index case is the archive path alone. It
// runs under the memory limit main sets (unless GOMEMLIMIT sets one): the
// collector's share of a profile is then the binary's.
func BenchmarkIngestRun(b *testing.B) {
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit))
	}
	mb := 50
	if v := os.Getenv("MEMEX_SCALE_MB"); v != "" {
		mb, _ = strconv.Atoi(strings.Split(v, ",")[0])
	}
	in, raw := scaleCorpus(b, mb)
	for _, c := range []struct {
		name  string
		extra []string
	}{{"index", nil}, {"no-index", []string{"--no-index"}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(raw)
			for i := 0; i < b.N; i++ {
				home := b.TempDir()
				var out, errb bytes.Buffer
				args := append([]string{"--home", home, "ingest", "auto", in, "--quiet"}, c.extra...)
				if err := Run(context.Background(), args, nil, &out, &errb); err != nil {
					b.Fatalf("%v\n%s", err, errb.Bytes())
				}
			}
		})
	}
}
