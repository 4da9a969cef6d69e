package summarize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// Benchmarks run on the shared corpora, in two shapes: the raw JSONL
// transcripts, and the text inside them (every JSON string of 64 bytes or
// more, unescaped: tool outputs, messages, file contents), which is what
// memex archives and counts.
//
//	go test ./summarize -run '^$' -bench 'Count' -benchtime 3x -cpu 1

var (
	benchOnce  sync.Once
	benchJSONL []byte
	benchText  []byte
)

func benchInputs(b *testing.B) map[string][]byte {
	b.Helper()
	dir := testutil.Corpora(b)
	benchOnce.Do(func() {
		files := corpusFiles(b, dir)
		sort.Strings(files)
		var jsonl, text bytes.Buffer
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			jsonl.Write(data)
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var v any
				if json.Unmarshal(sc.Bytes(), &v) == nil {
					appendStrings(&text, v)
				}
			}
		}
		benchJSONL, benchText = jsonl.Bytes(), text.Bytes()
	})
	return map[string][]byte{"jsonl": benchJSONL, "text": benchText}
}

func appendStrings(dst *bytes.Buffer, v any) {
	switch v := v.(type) {
	case string:
		if len(v) >= 64 {
			dst.WriteString(v)
			dst.WriteByte('\n')
		}
	case []any:
		for _, e := range v {
			appendStrings(dst, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			appendStrings(dst, v[k])
		}
	}
}

var benchShapes = []string{"text", "jsonl"}

// cpuClock reports MB per CPU second of this process (run with -cpu 1, so
// that is one core), next to the wall-clock MB/s that b.SetBytes gives.
type cpuClock struct {
	b     *testing.B
	start float64
}

func startCPU(b *testing.B) cpuClock {
	runtime.GC() // not to charge the loop with collecting the set-up's garbage
	return cpuClock{b, testutil.CPUSeconds()}
}

func (c cpuClock) report(bytes int64) {
	if secs := testutil.CPUSeconds() - c.start; secs > 0 && c.start > 0 {
		c.b.ReportMetric(float64(bytes)*float64(c.b.N)/secs/1e6, "MB/cpu-s")
	}
}

// BenchmarkCount is the warm case: the piece cache holds what earlier
// iterations saw.
func BenchmarkCount(b *testing.B) {
	inputs := benchInputs(b)
	vocab()
	for _, name := range benchShapes {
		data := inputs[name]
		b.Run(name, func(b *testing.B) {
			Count(data)
			b.SetBytes(int64(len(data)))
			clock := startCPU(b)
			for b.Loop() {
				Count(data)
			}
			clock.report(int64(len(data)))
		})
	}
}

// BenchmarkCountCold empties the piece cache before every pass.
func BenchmarkCountCold(b *testing.B) {
	inputs := benchInputs(b)
	vocab()
	for _, name := range benchShapes {
		data := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			clock := startCPU(b)
			for b.Loop() {
				resetPieceCache() // 32,768 stores: noise next to a pass
				Count(data)
			}
			clock.report(int64(len(data)))
		})
	}
}

// BenchmarkCounter streams the same bytes in 32 KiB writes.
func BenchmarkCounter(b *testing.B) {
	inputs := benchInputs(b)
	vocab()
	for _, name := range benchShapes {
		data := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			clock := startCPU(b)
			for b.Loop() {
				c := NewCounter()
				for rest := data; len(rest) > 0; {
					k := min(len(rest), 32<<10)
					c.Write(rest[:k])
					rest = rest[k:]
				}
				c.Count()
			}
			clock.report(int64(len(data)))
		})
	}
}

// BenchmarkCountLines counts 1 MiB of one repeated line, warm: separator
// lines longer than 64 bytes (the big-piece cache) and non-ASCII text (the
// BMP class table).
func BenchmarkCountLines(b *testing.B) {
	vocab()
	for name, line := range map[string]string{
		"equals80": strings.Repeat("=", 80),
		"box60":    strings.Repeat("─", 60),
		"cyrillic": "Привет, мир! Это строка текста для подсчёта токенов.",
		"cjk":      "这是一个用于计算令牌数量的中文句子。",
	} {
		data := []byte(strings.Repeat(line+"\n", (1<<20)/(len(line)+1)))
		b.Run(name, func(b *testing.B) {
			Count(data)
			b.SetBytes(int64(len(data)))
			clock := startCPU(b)
			for b.Loop() {
				Count(data)
			}
			clock.report(int64(len(data)))
		})
	}
}

// BenchmarkCountReference is tiktoken-go/tokenizer on the same bytes.
func BenchmarkCountReference(b *testing.B) {
	inputs := benchInputs(b)
	codec, _ := reference(b)
	for _, name := range benchShapes {
		s := string(inputs[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			clock := startCPU(b)
			for b.Loop() {
				if _, err := codec.Count(s); err != nil {
					b.Fatal(err)
				}
			}
			clock.report(int64(len(s)))
		})
	}
}
