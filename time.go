package memex

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeForms says which values ParseTime takes, for usage texts and errors.
const TimeForms = "a span back from now (30m, 2h, 2d, 1w, 1d12h), today, yesterday, " +
	"a date (2026-11-01), a local time (2026-11-01T15:04, 2026-11-01 15:04:05) " +
	"or RFC 3339 (2026-11-01T15:04:05Z, 2026-11-01T15:04:05+01:00)"

// ParseTime parses a point in time as the CLI's --since and the query
// syntax's after: and before: take it. Spans count back from now: s, m, h,
// d (24 hours) and w (7 days), one or several (1d12h). Dates and times
// without a zone are in now's location (the user's local time, for the
// CLI); a date is its midnight; today and yesterday are midnights too. RFC
// 3339 carries its own zone. Anything else is ErrInvalid with a message
// that names the value and the forms accepted.
func ParseTime(s string, now time.Time) (time.Time, error) {
	v := strings.TrimSpace(s)
	loc := now.Location()
	switch strings.ToLower(v) {
	case "today":
		return midnight(now), nil
	case "yesterday":
		return midnight(now).AddDate(0, 0, -1), nil
	}
	if d, ok := parseSpan(v); ok {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04",
		"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %q is not a time: want %s", ErrInvalid, s, TimeForms)
}

func midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// spanUnits are the units of a span, as ParseTime reads them.
var spanUnits = map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}

// parseSpan parses a span back from now: one or more whole numbers, each
// followed by a unit of spanUnits (90m, 2d, 1d12h). A span too long for a
// time.Duration (about 292 years) is not one.
func parseSpan(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) {
			return 0, false
		}
		unit, ok := spanUnits[s[i]]
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n > int64((1<<63-1)/unit) {
			return 0, false
		}
		d := time.Duration(n) * unit
		if total > 1<<63-1-d {
			return 0, false
		}
		total += d
		s = s[i+1:]
	}
	return total, true
}
