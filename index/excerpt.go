package index

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The bound on what is indexed of one body. A body of at most ExcerptHead
// bytes is indexed whole. Of a longer one, Excerpt keeps the first
// ExcerptHead bytes, the error-looking lines of the middle (each cut to
// errorLineMax bytes, ExcerptErrors bytes in all) and the last ExcerptTail
// bytes: the command's start, everything that failed, and its final
// verdict. A 4 MB build log costs the index at most ContentLimit bytes of
// text; the archive keeps all of it.
const (
	ExcerptHead   = 128 << 10
	ExcerptErrors = 32 << 10
	ExcerptTail   = 16 << 10
	ContentLimit  = ExcerptHead + ExcerptErrors + ExcerptTail + 2

	errorLineMax = 512
)

// errorWords mark a line worth indexing from the middle of a long body.
var errorWords = []string{
	"error", "fail", "panic", "exception", "traceback", "fatal", "denied",
	"not found", "undefined", "cannot", "can't", "unable to", "timed out",
	"timeout", "assert", "segmentation fault", "killed", "warning", "abort",
}

// isErrorLine reports whether line looks like a failure worth finding.
func isErrorLine(line []byte) bool {
	if len(line) > errorLineMax {
		line = line[:errorLineMax]
	}
	var buf [errorLineMax]byte
	low := buf[:len(line)]
	for i, c := range line {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for _, w := range errorWords {
		if bytes.Contains(low, []byte(w)) {
			return true
		}
	}
	return false
}

// Excerpt reads r to its end and returns what the index should see of it:
// all of it up to ExcerptHead bytes, else the bounded selection described
// at ExcerptHead, the parts joined by newlines. The result is a new slice
// of at most ContentLimit bytes.
//
// The result holds no more memory than its length and a small slack: a
// catch-up keeps thousands of excerpts at once, most of them of bodies of a
// few hundred bytes.
func Excerpt(r io.Reader) ([]byte, error) {
	head, err := readHead(r)
	if err != nil {
		return nil, fmt.Errorf("index: excerpt: %w", err)
	}
	if len(head) < ExcerptHead {
		return head, nil
	}
	// Finish the head's last line, so that the middle starts at a line
	// boundary.
	br := bufio.NewReaderSize(r, 64<<10)
	if k := bytes.LastIndexByte(head, '\n'); k < len(head)-1 {
		if _, err := br.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("index: excerpt: %w", err)
		}
	}

	var errs []byte    // kept error lines of the middle
	var tail [][]byte  // the last lines, at most ExcerptTail bytes in all
	var tailBytes int  // bytes in tail
	var tailErr []bool // whether each tail line was also kept in errs
	var tailErrN []int // its length in errs, to take it back out
	for {
		line, err := br.ReadSlice('\n')
		long := errors.Is(err, bufio.ErrBufferFull)
		if len(line) > 0 {
			l := append([]byte(nil), line...)
			if long { // keep only the line's start; skip the rest of it
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
				if len(l) > ExcerptTail {
					l = l[:ExcerptTail]
				}
			}
			kept, keptN := false, 0
			if len(errs) < ExcerptErrors && isErrorLine(l) {
				e := l
				if len(e) > errorLineMax {
					e = e[:errorLineMax]
				}
				e = bytes.TrimRight(e, "\n")
				if len(errs)+len(e)+1 <= ExcerptErrors {
					errs = append(errs, e...)
					errs = append(errs, '\n')
					kept, keptN = true, len(e)+1
				}
			}
			tail = append(tail, l)
			tailErr = append(tailErr, kept)
			tailErrN = append(tailErrN, keptN)
			tailBytes += len(l)
			for tailBytes > ExcerptTail && len(tail) > 1 {
				tailBytes -= len(tail[0])
				tail, tailErr, tailErrN = tail[1:], tailErr[1:], tailErrN[1:]
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("index: excerpt: %w", err)
		}
	}
	// Error lines that are in the tail anyway are indexed once, from the
	// tail.
	// They are the last ones kept, in order.
	for k := len(tail) - 1; k >= 0; k-- {
		if tailErr[k] {
			errs = errs[:len(errs)-tailErrN[k]]
		}
	}
	out := make([]byte, 0, len(head)+len(errs)+tailBytes+2)
	out = append(out, head...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, errs...)
	for _, l := range tail {
		out = append(out, l...)
	}
	if len(out) > ContentLimit {
		out = out[:ContentLimit]
	}
	return out, nil
}

// readHead reads up to ExcerptHead bytes of r, in a buffer that grows
// with what r yields (from 4 KiB) instead of one of ExcerptHead bytes.
func readHead(r io.Reader) ([]byte, error) {
	buf := make([]byte, 0, 4<<10)
	for len(buf) < ExcerptHead {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), ExcerptHead)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if cap(buf)-len(buf) > len(buf)/8+512 {
		buf = bytes.Clone(buf)
	}
	return buf, nil
}

// Bounds of path extraction.
const (
	maxPaths       = 256
	maxPathBytes   = 200
	maxPathSuffixs = 6
)

// codeExt are file extensions that make a bare name (no slash) a path.
var codeExt = map[string]bool{
	"go": true, "py": true, "js": true, "ts": true, "tsx": true, "jsx": true, "mjs": true, "cjs": true,
	"java": true, "kt": true, "rs": true, "c": true, "h": true, "cc": true, "cpp": true, "hpp": true,
	"cs": true, "rb": true, "php": true, "swift": true, "scala": true, "sh": true, "bash": true,
	"md": true, "rst": true, "txt": true, "json": true, "jsonl": true, "yaml": true, "yml": true,
	"toml": true, "ini": true, "cfg": true, "xml": true, "html": true, "css": true, "scss": true,
	"sql": true, "proto": true, "lock": true, "mod": true, "sum": true, "vue": true, "svelte": true,
	"ipynb": true, "gradle": true, "pyi": true, "pyx": true, "lua": true, "ex": true, "exs": true,
	"dart": true, "zig": true, "tf": true, "env": true, "log": true, "csv": true,
}

// Paths returns the file paths mentioned in input and content, exactly as
// written but without leading "./" or "/" and trailing :line[:col], each
// with its shorter suffixes at slash boundaries (src/auth/middleware.go
// also gives auth/middleware.go and middleware.go), at most maxPaths in
// all. A path is a word with a slash (not a URL) or a bare file name with
// a known extension.
func Paths(input string, content []byte) []string {
	seen := make(map[string]bool)
	var out []string
	add := func(p string) {
		if len(out) < maxPaths && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	scan := func(b []byte) {
		i := 0
		for i < len(b) && len(out) < maxPaths {
			if !isPathByte(b[i]) {
				i++
				continue
			}
			start := i
			for i < len(b) && isPathByte(b[i]) {
				i++
			}
			if i-start > maxPathRun || !bytes.ContainsAny(b[start:i], "/.") {
				continue // a path has a slash or an extension
			}
			p, ok := pathOf(string(b[start:i]))
			if p = pathTerm(p); !ok || p == "" {
				continue
			}
			add(p)
			for k, s := 0, p; k < maxPathSuffixs; k++ {
				j := strings.IndexByte(s, '/')
				if j < 0 || j == len(s)-1 {
					break
				}
				s = s[j+1:]
				add(s)
			}
		}
	}
	scan([]byte(input))
	scan(content)
	return out
}

func isPathByte(c byte) bool { return pathByte[c] }

// pathByte marks the bytes that may be part of a path: letters, digits
// and _ . / - : ~ + @.
var pathByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		t[c] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
			b == '_' || b == '.' || b == '/' || b == '-' || b == ':' || b == '~' || b == '+' || b == '@'
	}
	return t
}()

// pathOf normalises a candidate word and reports whether it is a path.
func pathOf(w string) (string, bool) {
	if strings.Contains(w, "://") {
		return "", false
	}
	w = strings.TrimRight(w, ".:")
	w = stripLineSuffix(w)
	w = strings.TrimRight(w, ".:")
	for strings.HasPrefix(w, "./") {
		w = w[2:]
	}
	w = strings.TrimLeft(w, "/")
	if w == "" || len(w) > maxPathRun || strings.HasPrefix(w, "-") || !hasLetter(w) {
		return "", false
	}
	if strings.Contains(w, "/") {
		return strings.TrimRight(w, "/"), true
	}
	if k := strings.LastIndexByte(w, '.'); k > 0 && codeExt[strings.ToLower(w[k+1:])] {
		return w, true
	}
	return "", false
}

// pathTerm is what the path filter holds of path p: p itself, or of a
// path longer than maxPathBytes its longest suffix at a slash that is not
// ("" when there is none); path:P for such a path finds the entries
// mentioning a path that ends so.
func pathTerm(p string) string {
	for len(p) > maxPathBytes {
		k := strings.IndexByte(p, '/')
		if k < 0 {
			return ""
		}
		p = p[k+1:]
	}
	return p
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		return s[:k]
	}
	return s
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
