package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unicode/utf8"
)

// errNotRegular is a path that names no regular file: a device such as
// /dev/zero would be read without end, a FIFO would block the reader (and
// the store's lock with it) until some writer came.
var errNotRegular = errors.New("not a regular file (a device, FIFO or socket): memex reads transcripts from regular files only")

// openRegular opens p for reading only when it is a regular file. The
// open itself does not block on a FIFO put in the file's place meanwhile
// (O_NONBLOCK; it changes nothing for a regular file), and the check is
// made on the open file.
func openRegular(p string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errNotRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	return f, fi, nil
}

// readRegular reads the regular file p whole, no more than the size it had
// when opened (a file still growing is read again by the next run).
func readRegular(p string) ([]byte, error) {
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, fi.Size())
	return readAllLimited(f, b, fi.Size())
}

func readAllLimited(r io.Reader, b []byte, n int64) ([]byte, error) {
	w := bytesWriter{b}
	_, err := io.Copy(&w, io.LimitReader(r, n))
	return w.b, err
}

type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// InvalidUTF8 counts the byte sequences of b that are not valid UTF-8,
// and the 1-based line of the first one (0 when there is none). JSON
// decoding replaces each with U+FFFD without a word: callers count and
// report them.
func InvalidUTF8(b []byte) (n, line int) {
	if utf8.Valid(b) {
		return 0, 0
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if n == 0 {
				line = bytes.Count(b[:i], []byte("\n")) + 1
			}
			n++
		}
		i += size
	}
	return n, line
}
