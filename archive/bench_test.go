package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
)

var (
	corpusOnce    sync.Once
	corpusOutputs [][]byte
)

// toolOutputs returns the observations (tool outputs) of every
// mini-swe-agent trajectory in the corpora, in a fixed order.
func toolOutputs(b *testing.B) [][]byte {
	out := loadToolOutputs(b)
	if len(out) == 0 {
		b.Skip("no tool outputs in the corpora")
	}
	return out
}

func loadToolOutputs(tb testing.TB) [][]byte {
	dir := testutil.Corpora(tb)
	corpusOnce.Do(func() {
		files, _ := filepath.Glob(filepath.Join(dir, "mini-swe-agent", "*", "*.traj.json"))
		sort.Strings(files)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var traj struct {
				Messages []struct {
					Role    string `json:"role"`
					Content any    `json:"content"`
				} `json:"messages"`
			}
			if json.Unmarshal(raw, &traj) != nil {
				continue
			}
			for i, m := range traj.Messages {
				if s, ok := m.Content.(string); ok && m.Role == "user" && i > 1 {
					corpusOutputs = append(corpusOutputs, []byte(s))
				}
			}
		}
	})
	return corpusOutputs
}

func totalBytes(bodies [][]byte) int64 {
	var n int64
	for _, b := range bodies {
		n += int64(len(b))
	}
	return n
}

// concat joins bodies into pieces of about size bytes.
func concat(bodies [][]byte, size int) [][]byte {
	var out [][]byte
	var cur []byte
	for _, b := range bodies {
		cur = append(cur, b...)
		if len(cur) >= size {
			out = append(out, cur)
			cur = nil
		}
	}
	return out
}

// BenchmarkAdd reports MB/s of raw tool output archived. One b.N is one
// pass over the whole set of bodies.
func BenchmarkAdd(b *testing.B) {
	outputs := toolOutputs(b)
	sets := map[string][][]byte{"entries": outputs, "1MB": concat(outputs, 1<<20)}
	for _, name := range []string{"entries", "1MB"} {
		bodies := sets[name]
		for _, mode := range []struct {
			name     string
			nosync   bool
			parallel bool
		}{{"sync", false, false}, {"sync-parallel", false, true}, {"nosync", true, false}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) {
				s, err := Open(b.TempDir(), &Options{NoSync: mode.nosync})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				ctx := context.Background()
				b.SetBytes(totalBytes(bodies))
				b.ResetTimer()
				cpu0 := testutil.CPUSeconds()
				defer func() {
					if cpu := testutil.CPUSeconds() - cpu0; cpu > 0 {
						b.ReportMetric(float64(totalBytes(bodies))*float64(b.N)/1e6/cpu, "MB/cpu-s")
					}
				}()
				for i := 0; i < b.N; i++ {
					// A fresh prefix per pass keeps dedup from eating the work.
					salt := []byte{byte(i), byte(i >> 8), '\n'}
					if !mode.parallel {
						for _, body := range bodies {
							if _, err := s.Add(ctx, memex.Entry{}, bytes.NewReader(append(salt[:3:3], body...))); err != nil {
								b.Fatal(err)
							}
						}
						continue
					}
					var wg sync.WaitGroup
					work := make(chan []byte)
					for w := 0; w < 8; w++ {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for body := range work {
								if _, err := s.Add(ctx, memex.Entry{}, bytes.NewReader(append(salt[:3:3], body...))); err != nil {
									b.Error(err)
								}
							}
						}()
					}
					for _, body := range bodies {
						work <- body
					}
					close(work)
					wg.Wait()
				}
			})
		}
	}
}

// BenchmarkZstdCeiling compresses the same bytes, chunked as the archive
// chunks them, at the level the archive uses, on one core: the speed add
// is measured against.
func BenchmarkZstdCeiling(b *testing.B) {
	outputs := toolOutputs(b)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(ChunkSize), zstd.WithEncoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"entries", "1MB"} {
		bodies := outputs
		if name == "1MB" {
			bodies = concat(outputs, 1<<20)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(totalBytes(bodies))
			cpu0 := testutil.CPUSeconds()
			defer func() {
				if cpu := testutil.CPUSeconds() - cpu0; cpu > 0 {
					b.ReportMetric(float64(totalBytes(bodies))*float64(b.N)/1e6/cpu, "MB/cpu-s")
				}
			}()
			var dst []byte
			for i := 0; i < b.N; i++ {
				for _, body := range bodies {
					for len(body) > 0 {
						n := min(len(body), ChunkSize)
						dst = enc.EncodeAll(body[:n], dst[:0])
						body = body[n:]
					}
				}
			}
		})
	}
}

// BenchmarkShow reads whole entries of 1 KB, 64 KB and 1 MB in-process and
// reports p50 and p99 latency and CPU time per read. Each size has 64 entries, which stay in
// Pebble's block cache; 1KB-scattered reads 32,768 entries of 1 KB (32 MiB,
// four times the cache) in a scattered order, so that most reads find
// their block on disk and decompress it.
func BenchmarkShow(b *testing.B) {
	outputs := toolOutputs(b)
	all := bytes.Join(outputs, nil)
	s, err := Open(b.TempDir(), &Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, size := range []struct {
		name    string
		n       int
		entries int
	}{{"1KB", 1 << 10, 64}, {"64KB", 64 << 10, 64}, {"1MB", 1 << 20, 64}, {"1KB-scattered", 1 << 10, 32 << 10}} {
		// Distinct entries of this size, cut from the corpus.
		var ids []memex.ID
		for i := 0; i < size.entries; i++ {
			off := (i * 7919 * size.n) % (len(all) - size.n)
			e, err := s.Add(ctx, memex.Entry{}, bytes.NewReader(all[off:off+size.n]))
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		// A store at rest: nothing in the memtable, no compaction running
		// beside the reads.
		if err := s.db.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := s.db.Compact(ctx, []byte{0}, []byte{0xff}, true); err != nil {
			b.Fatal(err)
		}
		b.Run(size.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			b.SetBytes(int64(size.n))
			cpu0 := testutil.CPUSeconds()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := s.ReadAll(ctx, ids[i*7919%len(ids)]); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			cpu := testutil.CPUSeconds() - cpu0
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			// CPU time is what the read costs; the percentiles also hold
			// the waits for a core that other processes hold.
			b.ReportMetric(cpu*1e6/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkDiskRatio archives the corpus tool outputs, lets Pebble flush
// and compact, and reports the store's bytes on disk against what
// `zstd -3` makes of the same bodies one file each (the zstd command when
// it is installed; else the same level in-process, reported as such).
// tables/zstd3 is the figure the target is about; bodies/zstd3 is
// Stats.StoredBytes against the same reference, and overhead-B/entry what
// the tables hold beyond it per entry.
func BenchmarkDiskRatio(b *testing.B) {
	for _, set := range []string{"entries", "1MB"} {
		b.Run(set, func(b *testing.B) {
			outputs := toolOutputs(b)
			if set == "1MB" {
				outputs = concat(outputs, 1<<20)
			}
			diskRatio(b, outputs)
		})
	}
}

func diskRatio(b *testing.B, outputs [][]byte) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		s, err := Open(dir, &Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		for _, body := range outputs {
			if _, err := s.Add(ctx, memex.Entry{Kind: memex.KindTool, Tool: "bash", Session: "bench"}, bytes.NewReader(body)); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.db.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := s.db.Compact(ctx, []byte{0}, []byte{0xff}, true); err != nil {
			b.Fatal(err)
		}
		st, err := s.Stats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		m := s.db.Metrics()
		b.Logf("tables %d, wal %d+%d obsolete, blob %d", m.Table.Local.LiveSize, m.WAL.PhysicalSize, m.WAL.ObsoletePhysicalSize, m.BlobFiles.Local.LiveSize)
		s.Close()
		ref, how := zstd3Bytes(b, outputs)
		b.ReportMetric(float64(st.DiskBytes)/float64(ref), "disk/zstd3")
		b.ReportMetric(float64(st.StoredBytes)/float64(ref), "bodies/zstd3")
		b.ReportMetric(float64(m.Table.Local.LiveSize)/float64(ref), "tables/zstd3")
		b.ReportMetric(float64(m.Table.Local.LiveSize-uint64(st.StoredBytes))/float64(st.Entries), "overhead-B/entry")
		b.Logf("%d entries, %d raw bytes, %d on disk, %d of bodies compressed (Stats.StoredBytes), %d by %s", st.Entries, st.RawBytes, st.DiskBytes, st.StoredBytes, ref, how)
	}
}

func zstd3Bytes(b *testing.B, bodies [][]byte) (int64, string) {
	if path, err := exec.LookPath("zstd"); err == nil {
		var total int64
		for _, body := range bodies {
			cmd := exec.Command(path, "-3", "-q", "-c")
			cmd.Stdin = bytes.NewReader(body)
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			total += int64(len(out))
		}
		return total, "zstd -3 (one file each)"
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	var total int64
	for _, body := range bodies {
		total += int64(len(enc.EncodeAll(body, nil)))
	}
	return total, "in-process zstd SpeedDefault (no zstd command installed)"
}
