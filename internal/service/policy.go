package service

import (
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/redact"
)

// PolicyWriter returns a writer to f that applies the write policy to e
// and to what it is given (streamed, in bounded memory) when redacting is
// set, and a func that ends the writing, adds the body's replacements to
// e.Redacted and returns the first error. It is Policy for a body written
// as it comes (memex run spools a command's output through it).
func PolicyWriter(f io.Writer, e *memex.Entry, redacting bool) (io.Writer, func() error) {
	if !redacting {
		return f, func() error { return nil }
	}
	pr, pw := io.Pipe()
	var rd *redact.Reader
	*e, rd = redact.Entry(*e, pr)
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(f, rd)
		pr.CloseWithError(err) // a failed spool fails the writes
		done <- err
	}()
	return pw, func() error {
		pw.Close()
		err := <-done
		e.Redacted += rd.Redacted()
		return err
	}
}
