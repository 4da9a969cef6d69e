package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/memex-archive/memex"
)

// HintReader is what HintFor reads: the archive and its state
// (archive.Store satisfies it).
type HintReader interface {
	Store
	StateReader
}

// maxHintLen bounds the line HintFor returns, in bytes.
const maxHintLen = 600

// HintFor is the line to add to an agent's context after the run id
// failed, when a lesson of the project is about the same command failing
// with the same error: the lesson's line and its ID. It is told once per
// command and session: only for the first failure of the command in the
// session. memex.ErrNotFound means there is nothing to tell (the run did
// not fail, failed before in the session, or no lesson matches).
func HintFor(ctx context.Context, s HintReader, id memex.ID) (string, error) {
	e, err := s.Get(ctx, id)
	if err != nil {
		return "", err
	}
	line, ok := FailedRun(e)
	if !ok || e.Project == "" {
		return "", fmt.Errorf("memory: hint: %s is no failed run: %w", id, memex.ErrNotFound)
	}
	if e.Session != "" {
		before := false
		err := s.Session(ctx, e.SessionRef(), func(x memex.Entry) error {
			if x.ID.Compare(id) >= 0 {
				return errStop // the rest comes after
			}
			if l, ok := FailedRun(x); ok && l == line {
				before = true
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) && !errors.Is(err, memex.ErrNotFound) {
			return "", err
		}
		if before {
			return "", fmt.Errorf("memory: hint: %q failed before in the session: %w", line, memex.ErrNotFound)
		}
	}
	lid, _, err := Hint(ctx, s, e.Project, line, Signature(e))
	if err != nil {
		return "", err
	}
	l, err := s.Get(ctx, lid)
	if err != nil {
		return "", err
	}
	text := "memex: this command failed the same way before: " + l.DisplaySummary()
	text = cut(text, maxHintLen-40) + " [lesson " + lid.String() + "]"
	return text, nil
}

var errStop = errors.New("stop")
