package service

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/summarize"
)

// importer is the Ingester over a home: memex ingest, POST /v1/ingest
// and a server's background imports all run it.
type importer struct{ h *home.Home }

// Ingest imports req's transcripts into the home's store with the write
// policy the request carries (req.Policy: Redacting's), then distils the
// lessons and procedures of the sessions that gained entries. Unless
// req.NoIndex, the index is first caught up with what earlier runs left
// pending, then fed the new entries as they are archived (on the other
// CPU: catchup.Feeder); Indexed counts both, the lessons left out. An
// index that cannot be opened or fed fails the call only once the
// entries are archived. The store is synced once at the end (a home
// opened with NoSync commits each entry without one).
//
// Every problem met goes to req.Warn as it happens; the result holds the
// first api.MaxIngestWarnings of them and counts the others.
func (im importer) Ingest(ctx context.Context, req api.IngestRequest) (api.IngestResult, error) {
	if err := CheckIngest(req); err != nil {
		return api.IngestResult{}, err
	}
	f, _ := ingest.ParseFormat(req.Format)
	s := im.h.Store
	var (
		mu       sync.Mutex
		warnings []string
		more     int
	)
	opts := ingest.Options{Format: f, Paths: req.Paths, Project: req.Project, Full: req.Full, Since: req.Since, Max: req.Max,
		Policy: req.Policy,
		Warn: func(msg string) {
			mu.Lock()
			if len(warnings) < api.MaxIngestWarnings {
				warnings = append(warnings, msg)
			} else {
				more++
			}
			mu.Unlock()
			if req.Warn != nil {
				req.Warn(msg)
			}
		}}
	if req.Progress != nil {
		opts.Progress = func(p ingest.Progress) { req.Progress(p.Bytes, p.TotalBytes) }
		if f == ingest.Git {
			opts.Progress = func(p ingest.Progress) { req.Progress(int64(p.Commits), int64(p.TotalCommits)) }
		}
	}
	indexed := 0
	var (
		ix    *index.Index
		feed  *catchup.Feeder
		ixErr error
	)
	if !req.NoIndex {
		if ix, ixErr = im.h.Index(); ixErr == nil {
			var st catchup.Stats
			if st, ixErr = catchup.CatchUp(ctx, s, ix); ixErr == nil {
				indexed = st.Indexed
				feed = catchup.NewFeeder(ctx, s, ix)
				opts.Added = feed.Add
			}
		}
	}
	// The new lessons are indexed with the rest, but Indexed counts the
	// imported entries.
	var (
		dix   *index.Index
		added func(memex.Entry, []byte)
	)
	if feed != nil {
		dix, added = ix, feed.Add
	}
	rep, drep, err := ingestThenDistill(ctx, s, opts, dix, added)
	lessons := drep.Added
	if serr := s.Sync(); err == nil {
		err = serr
	}
	if feed != nil {
		st, ferr := feed.Close()
		indexed += max(st.Indexed-lessons, 0)
		ixErr = ferr
	}
	if err != nil && ctx.Err() != nil && rep.Files > 0 {
		// Stopped (Ctrl-C, a deadline): say what is kept.
		return api.IngestResult{}, fmt.Errorf("ingest: %w", &memex.Error{
			What: fmt.Sprintf("interrupted after %s: the %s archived are kept",
				summarize.Plural(rep.Files, "file"), summarize.Plural(rep.Added, "entry")),
			Hint: "the same command again goes on from there", Err: err})
	}
	if err != nil {
		return api.IngestResult{}, err
	}
	if ixErr != nil {
		// The sentence says what was done before the failure, then the
		// failure in its own words; the cause keeps its class.
		return api.IngestResult{}, fmt.Errorf("ingest: %w", &memex.Error{
			What: "entries archived, indexing failed: " + memex.Sentence(ixErr), Hint: "the next search retries", Err: ixErr})
	}
	res := IngestResult(rep, indexed)
	res.Warnings, res.MoreWarnings = warnings, more
	return res, nil
}

// CheckIngest is what Ingest refuses of req before it reads or opens
// anything (ingest.Options.Check: the format, since and max, a path where
// the format has no default location), an error of class
// memex.ErrInvalid. memex ingest asks it first, to tell a bad command
// line as a usage error in the words POST /v1/ingest answers with.
func CheckIngest(req api.IngestRequest) error {
	f, err := ingest.ParseFormat(req.Format)
	if err != nil {
		return err
	}
	return ingest.Options{Format: f, Paths: req.Paths, Since: req.Since, Max: req.Max}.Check()
}

// IngestResult is rep with the count of entries indexed, as memex ingest
// --json prints it and POST /v1/ingest answers it.
func IngestResult(rep ingest.Report, indexed int) api.IngestResult {
	return api.IngestResult{Files: rep.Files, Unchanged: rep.Unchanged, Sessions: rep.Sessions, Added: rep.Added,
		Present: rep.Present, Differ: rep.Differ, Completed: rep.Completed, Skipped: rep.Skipped, Unknown: rep.Unknown,
		Ignored: rep.Ignored, Redacted: rep.Redacted, RedactedKinds: rep.RedactedKinds, InvalidUTF8: rep.InvalidUTF8,
		Bytes: rep.Bytes, BodyBytes: rep.BodyBytes, Commits: rep.Commits, FileErrors: rep.FileErrors, Unusable: rep.Unusable,
		Indexed: indexed}
}

// ErrNoFile is IngestOutcome's answer for an import of which no path
// yielded a file; the result's FileErrors say why, each path in a line.
var ErrNoFile = errors.New("ingest: no path yielded a file")

// IngestOutcome is what the result of an import of format means as a
// whole, local or served alike: nil when a file was read, or every file
// found was imported before (a path or a file that yields nothing beside
// others that do is only reported, as a malformed line is); ErrNoFile
// when no path yielded a file; an error saying nothing was imported when
// every file found was unusable (of another format, or wholly malformed).
func IngestOutcome(format ingest.Format, res api.IngestResult) error {
	switch {
	case len(res.FileErrors) > 0 && res.Files == 0 && res.Unchanged == 0:
		return ErrNoFile
	case res.Files > 0 && len(res.Unusable) == res.Files && res.Unchanged == 0:
		what := "valid " + string(format) + " record"
		if format == ingest.Auto {
			what = "valid record of a format memex reads"
		}
		return fmt.Errorf("ingest: nothing imported: no %s in the %s read", what, summarize.Plural(res.Files, "file"))
	}
	return nil
}
