package memex

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	now := time.Date(2026, 11, 29, 10, 30, 0, 0, paris)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2d", now.Add(-48 * time.Hour)},
		{"30m", now.Add(-30 * time.Minute)},
		{"1w", now.Add(-7 * 24 * time.Hour)},
		{"1d12h", now.Add(-36 * time.Hour)},
		{"45s", now.Add(-45 * time.Second)},
		{" 2h ", now.Add(-2 * time.Hour)},
		{"today", time.Date(2026, 11, 29, 0, 0, 0, 0, paris)},
		{"Yesterday", time.Date(2026, 11, 28, 0, 0, 0, 0, paris)},
		// A date or a time without a zone is in now's location.
		{"2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, paris)},
		{"2026-11-01T15:04", time.Date(2026, 11, 1, 15, 4, 0, 0, paris)},
		{"2026-11-01 15:04:05", time.Date(2026, 11, 1, 15, 4, 5, 0, paris)},
		// RFC 3339 carries its own.
		{"2026-11-01T15:04:05Z", time.Date(2026, 11, 1, 15, 4, 5, 0, time.UTC)},
		{"2026-11-01T15:04:05.25-05:00", time.Date(2026, 11, 1, 20, 4, 5, 250e6, time.UTC)},
	} {
		got, err := ParseTime(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "2", "d", "2x", "2d3", "-2d", "1.5h", "2026-13-01", "2026-11-01T25:00", "01JD8X3N6Q4W0G2Y7T5R9KZC1M",
		"99999999999999999999d", "300000w"} {
		_, err := ParseTime(in, now)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"`+in+`" is not a time`) ||
			!strings.Contains(err.Error(), "2d") || !strings.Contains(err.Error(), "2026-11-01") || !strings.Contains(err.Error(), "RFC 3339") {
			t.Errorf("ParseTime(%q): %v; want an ErrInvalid naming the value and the forms", in, err)
		}
	}
}
