package redact

import (
	"bufio"
	"bytes"
	"io"
)

// Chunking bounds for Reader. A chunk ends at a newline so that no
// credential (all single-line but PEM blocks) is cut in two; a PEM block
// left open at the end of a chunk pulls in more input until its END line.
const (
	chunkSize   = 256 << 10
	maxLineTail = 64 << 10 // how far past chunkSize to look for a newline
	maxPEMTail  = 1 << 20  // how far to look for the END of an open key block
)

// Reader redacts a stream: it reads r in newline-aligned chunks and
// returns each chunk redacted, so a writer can archive output of any size
// without holding it all. N counts the replacements in the body so far and
// Kinds the replacements by kind; read them after EOF. A single line longer than 320 KiB is split where it must
// be, and a credential straddling that split is missed.
type Reader struct {
	src   *bufio.Reader
	out   []byte
	err   error
	N     int
	Kinds map[string]int
}

// NewReader returns a Reader redacting r.
func NewReader(r io.Reader) *Reader {
	return &Reader{src: bufio.NewReaderSize(r, chunkSize)}
}

// Redacted returns N: how many credentials the body held, once it has been
// read to EOF. archive.Store.Add looks for this method on the body it
// reads and adds the count to the entry it stores.
func (r *Reader) Redacted() int { return r.N }

func (r *Reader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

func (r *Reader) fill() {
	chunk := make([]byte, 0, chunkSize+4096)
	chunk, r.err = readUpTo(r.src, chunk, chunkSize)
	if r.err == nil {
		// Finish the line.
		chunk, r.err = readLine(r.src, chunk, maxLineTail)
	}
	for r.err == nil && openPEM(chunk) {
		before := len(chunk)
		chunk, r.err = readUpTo(r.src, chunk, before+4096)
		if r.err == nil {
			chunk, r.err = readLine(r.src, chunk, maxLineTail)
		}
		if len(chunk)-before == 0 || len(chunk) > chunkSize+maxPEMTail {
			break
		}
	}
	out, n, kinds := Redact(chunk)
	r.N += n
	r.Kinds = merge(r.Kinds, kinds)
	r.out = out
}

// readUpTo appends from br until dst holds limit bytes or the input ends.
func readUpTo(br *bufio.Reader, dst []byte, limit int) ([]byte, error) {
	var buf [32 << 10]byte
	for len(dst) < limit {
		n, err := br.Read(buf[:min(len(buf), limit-len(dst))])
		dst = append(dst, buf[:n]...)
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// readLine appends up to and including the next newline, at most limit bytes.
func readLine(br *bufio.Reader, dst []byte, limit int) ([]byte, error) {
	if len(dst) > 0 && dst[len(dst)-1] == '\n' {
		return dst, nil
	}
	for n := 0; n < limit; {
		frag, err := br.ReadSlice('\n')
		dst = append(dst, frag...)
		n += len(frag)
		if err != bufio.ErrBufferFull {
			return dst, err
		}
	}
	return dst, nil
}

// openPEM reports whether chunk ends inside a private key block.
func openPEM(chunk []byte) bool {
	b := bytes.LastIndex(chunk, beginMark)
	if b < 0 {
		return false
	}
	return !bytes.Contains(chunk[b:], endMark)
}
