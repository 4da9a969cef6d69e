package main

import (
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
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
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			o := home.Options{Shared: true, AsFound: true} // the spool is reported, not archived
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
			if asJSON {
				err = cli.WriteJSON(a.stdout, res)
			} else {
				render.Verify(a.stdout, a.stderr, res)
			}
			if err == nil && len(res.Problems)+len(res.Files) > 0 {
				return cli.Exit(cli.ExitFailure) // anything wrong
			}
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	c.Flags().BoolVar(&repair, "repair", false, "cut a damaged write-ahead log at the damage and open the store for writing again")
	return c
}
