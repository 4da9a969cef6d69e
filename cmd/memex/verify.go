package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

func (a *app) verifyCommand() *cobra.Command {
	var asJSON, repair bool
	c := &cobra.Command{
		Use:   "verify [--repair] [--json]",
		Short: "Check that every entry's body decodes and matches its hash",
		Long: `Read every entry's body, decompress it, and check its size, line count and
sha256 against its metadata. Check the home too: store/, index/ and spool/ must be
mode 0700 and the token and serve.addr files 0600 (other users could read the
archive otherwise), and the spool must hold nothing left over (work that a hook or
memex run could not hand to the store, archived by the next memex command that
writes). Check that the search index holds every entry marked indexed (a rebuild
killed half way left entries unsearchable) and opens at all. Prints each problem and
exits 1 if there is any.

A damaged write-ahead log (store/*.log) is reported with the entries acknowledged
after the damage, which cannot be read back; until it is repaired, commands that
write refuse to open the store and reads see it as it was before the damage.
--repair cuts the log at the damage, keeps everything before it, and opens the store
for writing again; later runs of verify note what was lost. Entries imported from
transcripts come back with memex ingest (their keys are gone with them).`,
		Example: `  memex verify
  memex verify --json   # {"checked","problems":[{"id","message"}],"files":[{"path","message"}],"notes":[...]}
  memex verify --repair # after a damaged log was reported`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			o := home.Options{Shared: true}
			if repair {
				o = home.Options{MustExist: true, RepairWAL: true}
			}
			svc, err := a.service(c.Context(), o)
			if err != nil {
				return err
			}
			res, err := svc.Verify(c.Context())
			if err != nil {
				return err
			}
			return a.printVerify(res, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	c.Flags().BoolVar(&repair, "repair", false, "cut a damaged write-ahead log at the damage and open the store for writing again")
	return c
}

// verifyHome checks the store's entries, the index (opened by openIndex)
// and the home's files: what memex verify reports, locally or through a
// running server.
func verifyHome(ctx context.Context, s *archive.Store, openIndex func() (*index.Index, error), dir string) (api.VerifyResult, error) {
	res := api.VerifyResult{Problems: []api.Problem{}}
	n, err := s.Verify(ctx, func(p archive.Problem) {
		res.Problems = append(res.Problems, api.Problem{ID: p.ID, Message: p.Message})
	})
	if err != nil {
		return res, err
	}
	res.Checked = n
	if res.Files, err = homeProblems(dir); err != nil {
		return res, err
	}
	if d := s.Damage(); d != nil {
		res.Files = append(res.Files, api.Problem{Path: filepath.Join(dir, home.StoreDir, d.Log),
			Message: strings.TrimPrefix(d.Error(), "archive: ") + "; memex verify --repair keeps the rest and opens the store for writing again"})
	}
	losses, err := s.Losses(ctx)
	if err != nil {
		return res, err
	}
	for _, l := range losses {
		msg := fmt.Sprintf("repaired %s: %s", l.At.Local().Format("2006-01-02 15:04"), strings.TrimPrefix(l.Error(), "archive: "))
		res.Notes = append(res.Notes, api.Problem{Path: filepath.Join(dir, home.StoreDir, l.Log), Message: msg})
	}
	ixp, err := indexProblems(ctx, s, openIndex, dir)
	res.Files = append(res.Files, ixp...)
	return res, err
}

// indexProblems checks that the index opens and holds every entry of s that
// is marked indexed.
func indexProblems(ctx context.Context, s *archive.Store, openIndex func() (*index.Index, error), dir string) ([]api.Problem, error) {
	path := filepath.Join(dir, home.IndexDir)
	const fix = "the next search rebuilds it from the archive, or run memex reindex"
	ix, err := openIndex()
	switch {
	case errors.Is(err, memex.ErrNotFound):
		// No index yet: every entry marked indexed is missing.
		if any, err := s.AnyIndexed(ctx); err != nil || !any {
			return nil, err
		}
		return []api.Problem{{Path: path, Message: "no index, and entries of the archive are marked indexed: " + fix}}, nil
	case errors.Is(err, memex.ErrCorrupt), errors.Is(err, memex.ErrSchema):
		return []api.Problem{{Path: path, Message: err.Error() + ": " + fix}}, nil
	case err != nil:
		return nil, err
	}
	cov, err := catchup.CheckCoverage(ctx, s, ix)
	if err != nil {
		return nil, err
	}
	var out []api.Problem
	if cov.Rebuilding {
		out = append(out, api.Problem{Path: path, Message: "a rebuild of the index was interrupted: the next search or memex reindex finishes it"})
	}
	if n := len(cov.Missing); n > 0 {
		out = append(out, api.Problem{Path: path, Message: fmt.Sprintf("%d of %s marked indexed are not in the index, so no search finds them (first %s): %s",
			n, summarize.Plural(cov.Entries-cov.Pending, "entry"), cov.Missing[0], fix)})
	}
	return out, nil
}

// printVerify prints a verification as memex verify does; it exits 1 when
// anything is wrong.
func (a *app) printVerify(res api.VerifyResult, asJSON bool) error {
	if asJSON {
		if err := writeJSON(a.stdout, res); err != nil {
			return err
		}
	} else {
		for _, p := range res.Problems {
			where := "store"
			if !p.ID.IsZero() {
				where = p.ID.String()
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", where, p.Message)
		}
		for _, p := range res.Files {
			fmt.Fprintf(a.stdout, "%s: %s\n", p.Path, p.Message)
		}
		for _, p := range res.Notes {
			fmt.Fprintf(a.stdout, "note: %s: %s\n", p.Path, p.Message)
		}
		fmt.Fprintf(a.stderr, "memex: verified %s, %s\n", summarize.Plural(res.Checked, "entry"),
			summarize.Plural(len(res.Problems)+len(res.Files), "problem"))
	}
	if len(res.Problems)+len(res.Files) > 0 {
		return &exitStatus{code: exitFailure}
	}
	return nil
}

// homeProblems lists the home's files that other users may read and what
// the spool holds that was not archived yet.
func homeProblems(dir string) ([]api.Problem, error) {
	out := []api.Problem{}
	modes, err := home.Modes(dir)
	if err != nil {
		return nil, err
	}
	for _, m := range modes {
		out = append(out, api.Problem{Path: m.Path, Message: m.Message()})
	}
	left, err := home.Leftover(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range left {
		msg := "spooled, not archived yet (the next memex command that writes archives it: memex add, run, ingest or a hook)"
		if strings.HasSuffix(p, ".bad") {
			msg = "spooled and unreadable: kept for you to look at, then remove"
		}
		out = append(out, api.Problem{Path: p, Message: msg})
	}
	return out, nil
}

// fileProblem is a problem of a file of the home rather than of an entry
// (Path set, no ID).
type fileProblem = api.Problem
