package archive

import (
	"crypto/sha256"
	"hash"
	"sync"

	"github.com/memex-archive/memex/summarize"
)

// ExactTokenBytes is how much of a body is token-counted exactly at add
// time. Beyond it, each chunk's token count is extrapolated from an exact
// count of its first SampleBytes, and the entry is marked TokensEstimated.
//
// Why: exact BPE counting runs at about a third of zstd's speed, so
// counting every byte of a multi-gigabyte log would make counting, not
// compression, the cost of an add. Typical tool outputs are far below this
// limit and get exact counts; budgets stay exact regardless, because deref
// counts exactly what it returns.
const (
	ExactTokenBytes = 64 << 10
	SampleBytes     = 16 << 10
)

// sideCounter hashes, token-counts and tallies (for the summary's counts)
// a body's chunks on a goroutine of its own, so that counting overlaps
// compression on another core. Chunks are processed in order.
type sideCounter struct {
	in   chan []byte
	done chan struct{}
	once sync.Once

	hash      hash.Hash
	exact     *summarize.Counter
	seen      int64
	estimated int64 // tokens extrapolated from samples
	sampled   bool
	sum       []byte
	tokens    int64
	tally     summarize.Tally // read after finish
}

// chunkPool recycles ChunkSize buffers: most adds are a few kilobytes, and
// clearing fresh 256 KiB buffers for each would cost more than the add.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, ChunkSize); return &b }}

var counterPool = sync.Pool{New: func() any { return summarize.NewCounter() }}

func getChunk() []byte  { return (*chunkPool.Get().(*[]byte))[:ChunkSize] }
func putChunk(b []byte) { chunkPool.Put(&b) }

func newSideCounter() *sideCounter {
	c := &sideCounter{
		in:    make(chan []byte, 2),
		done:  make(chan struct{}),
		hash:  sha256.New(),
		exact: counterPool.Get().(*summarize.Counter),
	}
	c.exact.Reset()
	go c.loop()
	return c
}

// add queues a copy of raw.
func (c *sideCounter) add(raw []byte) {
	buf := getChunk()
	c.in <- append(buf[:0], raw...)
}

func (c *sideCounter) loop() {
	defer close(c.done)
	for raw := range c.in {
		c.hash.Write(raw)
		c.tally.Write(raw)
		switch {
		case c.seen+int64(len(raw)) <= ExactTokenBytes:
			c.exact.Write(raw)
		case c.seen < ExactTokenBytes:
			n := ExactTokenBytes - c.seen
			c.exact.Write(raw[:n])
			c.estimate(raw[n:])
		default:
			c.estimate(raw)
		}
		c.seen += int64(len(raw))
		putChunk(raw)
	}
	c.sum = c.hash.Sum(nil)
	c.tokens = c.exact.Count() + c.estimated
	c.exact.Reset()
	counterPool.Put(c.exact)
	c.exact = nil
}

func (c *sideCounter) estimate(b []byte) {
	c.sampled = true
	if len(b) <= SampleBytes {
		c.estimated += int64(summarize.Count(b))
		return
	}
	n := summarize.Count(b[:SampleBytes])
	c.estimated += int64(float64(n) * float64(len(b)) / SampleBytes)
}

// finish waits for the queued chunks and returns the body's sha256, its
// token count and whether that count is an estimate. It is safe to call
// more than once.
func (c *sideCounter) finish() (sum []byte, tokens int64, estimated bool) {
	c.once.Do(func() { close(c.in) })
	<-c.done
	return c.sum, c.tokens, c.sampled
}
