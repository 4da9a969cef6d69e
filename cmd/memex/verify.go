package main

import (
	"fmt"
	"strings"

	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

func (a *app) verifyCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "verify [--json]",
		Short: "Check that every entry's body decodes and matches its hash",
		Long: `Read every entry's body, decompress it, and check its size, line count and
sha256 against its metadata. Check the home too: store/, index/ and spool/ must be
mode 0700 and the token and serve.addr files 0600 (other users could read the
archive otherwise), and the spool must hold nothing left over (work that a hook or
memex run could not hand to the store, archived by the next memex command that
writes). Prints each problem and exits 1 if there is any.`,
		Example: `  memex verify
  memex verify --json   # {"checked","problems":[{"id","message"}],"files":[{"path","message"}]}`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := a.readStore(c.Context())
			if err != nil {
				return err
			}
			problems := []archive.Problem{}
			n, err := s.Verify(c.Context(), func(p archive.Problem) {
				problems = append(problems, p)
				if !asJSON {
					where := "store"
					if !p.ID.IsZero() {
						where = p.ID.String()
					}
					fmt.Fprintf(a.stdout, "%s: %s\n", where, p.Message)
				}
			})
			if err != nil {
				return err
			}
			files, err := homeProblems(a.home)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(a.stdout, map[string]any{"checked": n, "problems": problems, "files": files}); err != nil {
					return err
				}
			} else {
				for _, p := range files {
					fmt.Fprintf(a.stdout, "%s: %s\n", p.Path, p.Message)
				}
				fmt.Fprintf(a.stderr, "memex: verified %s, %s\n", summarize.Plural(n, "entry"), summarize.Plural(len(problems)+len(files), "problem"))
			}
			if len(problems)+len(files) > 0 {
				return &exitStatus{code: exitFailure}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}

// fileProblem is a problem of a file of the home rather than of an entry.
type fileProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// homeProblems lists the home's files that other users may read and what
// the spool holds that was not archived yet.
func homeProblems(dir string) ([]fileProblem, error) {
	out := []fileProblem{}
	modes, err := home.Modes(dir)
	if err != nil {
		return nil, err
	}
	for _, m := range modes {
		out = append(out, fileProblem{m.Path, m.Message()})
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
		out = append(out, fileProblem{p, msg})
	}
	return out, nil
}
