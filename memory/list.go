package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// Scanner reads every entry of an archive in ID order (archive.Store
// satisfies it).
type Scanner interface {
	Scan(ctx context.Context, from, to time.Time, fn func(memex.Entry) error) error
}

// LessonFilter selects lessons for ListLessons; an empty field selects
// any, a zero Limit all.
type LessonFilter struct {
	Project, Session, Status string
	Limit                    int
}

// LessonItem is one lesson entry as memex lessons lists it.
type LessonItem struct {
	ID      string    `json:"id"`
	Status  string    `json:"status"`
	Text    string    `json:"text"`
	Command string    `json:"command"`
	Session string    `json:"session"`
	Agent   string    `json:"agent,omitempty"`
	Created time.Time `json:"created"`
	Cites   []string  `json:"cites"`
}

// ListLessons lists the lesson entries f selects, newest first (never
// nil).
func ListLessons(ctx context.Context, s Scanner, f LessonFilter) ([]LessonItem, error) {
	switch f.Status {
	case "", StatusFixed, StatusReverted, StatusAbandoned:
	default:
		return nil, memex.Errorf(memex.ErrInvalid, "lessons: status %q: want one of %s, %s, %s", f.Status, StatusFixed, StatusReverted, StatusAbandoned)
	}
	items := []LessonItem{}
	err := s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		if e.Kind != KindLesson || f.Project != "" && e.Project != f.Project || f.Session != "" && e.Session != f.Session ||
			f.Status != "" && e.Attrs[attrStatus] != f.Status {
			return nil
		}
		items = append(items, LessonItem{ID: e.ID.String(), Status: e.Attrs[attrStatus], Text: e.DisplaySummary(), Command: e.Input,
			Session: e.Session, Agent: e.Agent, Created: e.Created, Cites: strings.Split(e.Attrs[attrCites], ",")})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("memory: lessons: %w", err)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].ID > items[j].ID })
	if f.Limit > 0 && len(items) > f.Limit {
		items = items[:f.Limit]
	}
	return items, nil
}

// WriteExport writes render's output for the file's current content (nil
// when there is none) to path, atomically, unless the file holds it
// already: exporting again with nothing new leaves it byte for byte as it
// was. It reports whether it wrote.
func WriteExport(path string, render func(old []byte) []byte) (bool, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("export: %w", err)
	}
	data := render(old)
	if err == nil && string(old) == string(data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("export: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".memex-export-*")
	if err != nil {
		return false, fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("export: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, fmt.Errorf("export: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, fmt.Errorf("export: %w", err)
	}
	return true, nil
}
