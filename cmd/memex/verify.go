package main

import (
	"fmt"

	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

func (a *app) verifyCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "verify [--json]",
		Short: "Check that every entry's body decodes and matches its hash",
		Long: `Read every entry's body, decompress it, and check its size, line count and
sha256 against its metadata. Prints each problem and exits 1 if there is any.`,
		Example: `  memex verify
  memex verify --json   # {"checked","problems":[{"id","message"}]}`,
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
			if asJSON {
				if err := writeJSON(a.stdout, map[string]any{"checked": n, "problems": problems}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.stderr, "memex: verified %s, %s\n", summarize.Plural(n, "entry"), summarize.Plural(len(problems), "problem"))
			}
			if len(problems) > 0 {
				return &exitStatus{code: exitFailure}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}
