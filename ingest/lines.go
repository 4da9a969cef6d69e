package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// eachLine calls fn for every complete line of s.data with its file
// offset and 1-based line number; blank lines are passed over. A last line
// without its newline is passed only when it is valid JSON (a finished file
// without a trailing newline); otherwise the host is still writing it (or
// stopped in the middle of it) and it is left for the next run, with a
// warning that names it: a file cut short is not taken for a whole one.
// eachLine returns the file offset and line number just past the last
// line passed.
func (s *source) eachLine(ctx context.Context, fn func(line []byte, off int64, no int) error) (int64, int, error) {
	data := s.data
	pos := 0
	no := s.line
	for pos < len(data) {
		if no%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return s.base + int64(pos), no, fmt.Errorf("ingest: %w", err)
			}
		}
		nl := bytes.IndexByte(data[pos:], '\n')
		var line []byte
		next := 0
		if nl < 0 {
			line = data[pos:]
			if !json.Valid(bytes.TrimSpace(line)) {
				if len(bytes.TrimSpace(line)) > 0 {
					s.ignore("partial last line")
					s.warnf(no, "last line cut short (no newline, not valid JSON): not imported; a later run reads it once it is written whole")
				}
				return s.base + int64(pos), no, nil
			}
			next = len(data)
		} else {
			line = data[pos : pos+nl]
			next = pos + nl + 1
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 {
			if err := fn(line, s.base+int64(pos), no); err != nil {
				return s.base + int64(pos), no, err
			}
		}
		pos = next
		no++
	}
	return s.base + int64(pos), no, nil
}

// parseTime reads an ISO-8601 timestamp; the zero time when absent or bad.
func parseTime(v string) time.Time {
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// clock hands out creation times in record order: a record's own
// timestamp when it has one and it is not earlier than the last one
// handed out, else the last one (before any, the fallback: the first
// timestamp of a document, or the file's mtime). IDs follow creation
// times, so a session replays in the order its records were written.
type clock struct{ last, fallback time.Time }

func (c *clock) at(t time.Time) time.Time {
	if t.IsZero() || !c.last.IsZero() && t.Before(c.last) {
		if c.last.IsZero() {
			return c.fallback
		}
		return c.last
	}
	c.last = t
	return t
}

// compactJSON renders raw JSON on one line; raw itself when it does not
// parse.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// jsonString decodes raw as a JSON string; ok is false for anything else.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func attrs(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

func nonEmpty(s string) bool { return strings.TrimSpace(s) != "" }
