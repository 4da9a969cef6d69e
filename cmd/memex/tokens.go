package main

import (
	"fmt"

	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

func (a *app) tokensCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "tokens [FILE|-]",
		Short: "Count the tokens of a text under memex's tokenizer",
		Long: `Count the tokens of FILE (or stdin) under memex's one tokenizer (` + summarize.Encoding + `),
the one every budget is measured in.`,
		Example: `  memex tokens README.md
  go test ./... 2>&1 | memex tokens`,
		Args: cli.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			in, err := cli.Input(args, a.stdin)
			if err != nil {
				return err
			}
			defer in.Close()
			n, bytes, err := summarize.CountReader(in)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.stdout, map[string]any{"tokens": n, "bytes": bytes, "encoding": summarize.Encoding})
			}
			_, err = fmt.Fprintln(a.stdout, n)
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"tokens","bytes","encoding"}`)
	return c
}
