package main

import (
	"time"

	"github.com/memex-archive/memex"
)

// timeValue is a flag that takes a point in time as memex.ParseTime reads
// it (2d, 2026-11-01, RFC 3339), relative to when the flag is parsed. A
// value it cannot read fails the flag's parse, so the usage error names the
// flag, the value and the forms taken.
type timeValue struct {
	t   *time.Time
	raw string
}

func (v *timeValue) Set(s string) error {
	t, err := memex.ParseTime(s, time.Now())
	if err != nil {
		return err
	}
	*v.t, v.raw = t, s
	return nil
}

func (v *timeValue) String() string { return v.raw }
func (v *timeValue) Type() string   { return "time" }

// sinceText is a search text narrowed to entries created at since or
// later, in the query syntax that local and served searches share.
func sinceText(text string, since time.Time) string {
	if since.IsZero() {
		return text
	}
	return text + " after:" + since.UTC().Format(time.RFC3339Nano)
}
