package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// Store is what memory reads of the archive: deref's Store (archive.Store
// satisfies it).
type Store interface {
	deref.Store
}

// windows are the spans of time read back from now, each reaching further
// than the one before; zero is everything.
var windows = []time.Duration{7 * 24 * time.Hour, 30 * 24 * time.Hour, 365 * 24 * time.Hour, 0}

// recent returns the project's entries in ID order, reading back from now
// one window at a time until enough(entries) says they suffice or the
// whole archive was read.
func recent(ctx context.Context, s Store, project string, now time.Time, enough func([]memex.Entry) bool) ([]memex.Entry, error) {
	var out []memex.Entry
	to := time.Time{} // the first window reaches to the end
	for _, w := range windows {
		var from time.Time
		if w > 0 {
			from = now.Add(-w)
		}
		var got []memex.Entry
		err := s.Scan(ctx, from, to, func(e memex.Entry) error {
			if e.Project == project {
				got = append(got, e)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("memory: scan %s: %w", project, err)
		}
		out = append(got, out...)
		if w == 0 || enough(out) {
			break
		}
		to = from
	}
	return out, nil
}

// all returns every entry of the project in ID order.
func all(ctx context.Context, s Store, project string) ([]memex.Entry, error) {
	var out []memex.Entry
	err := s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		if e.Project == project {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("memory: scan %s: %w", project, err)
	}
	return out, nil
}
