package archive

import (
	"bytes"

	"github.com/memex-archive/memex/summarize"
)

// tokenCounter counts the tokens of a body written in pieces.
type tokenCounter interface {
	Write(p []byte) (int, error)
	Total() int64
}

// segCounter counts exactly by cutting the stream after a '\n' that is
// followed by a non-space byte: no cl100k pre-token spans such a point, so
// the counts of the segments add up to the count of the whole.
type segCounter struct {
	carry []byte
	total int64
}

func newTokenCounter() tokenCounter { return &segCounter{} }

func (c *segCounter) Write(p []byte) (int, error) {
	c.carry = append(c.carry, p...)
	cut := -1
	for i := len(c.carry) - 2; i >= 0; i-- {
		if c.carry[i] == '\n' && !isSpace(c.carry[i+1]) {
			cut = i + 1
			break
		}
	}
	if cut > 0 {
		c.total += int64(summarize.Count(c.carry[:cut]))
		c.carry = append(c.carry[:0], c.carry[cut:]...)
	}
	return len(p), nil
}

func (c *segCounter) Total() int64 {
	if len(c.carry) > 0 {
		c.total += int64(summarize.Count(c.carry))
		c.carry = c.carry[:0]
	}
	return c.total
}

func isSpace(b byte) bool { return bytes.IndexByte([]byte(" \t\r\n\v\f"), b) >= 0 }
