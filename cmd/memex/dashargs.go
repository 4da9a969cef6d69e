package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// nameCommands take one session name or alias, which may start with '-'
// (agents and scripts name sessions "-fix-auth"). replay and show.
var nameCommands = map[string]bool{"replay": true, "show": true}

// dashOperands lets the name of replay or show start with '-': a word of
// the command line that starts with a single '-', is not one of the
// command's flags and is not a flag's value is moved behind "--", where
// cobra reads it as the operand. Everything else is left as it is, so a
// mistyped flag of another command is still a usage error.
func dashOperands(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c == root || !nameCommands[c.Name()] {
		return args
	}
	c.InitDefaultHelpFlag()
	flags := pflag.NewFlagSet("", pflag.ContinueOnError)
	flags.AddFlagSet(c.Flags())
	flags.AddFlagSet(c.InheritedFlags())
	var keep, operands []string
	value := false // the word before was a flag that takes a value
	for _, w := range args {
		switch {
		case w == "--":
			return args
		case value:
			value = false
			keep = append(keep, w)
		case strings.HasPrefix(w, "--"):
			name, _, hasValue := strings.Cut(w[2:], "=")
			if f := flags.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				value = true
			}
			keep = append(keep, w)
		case len(w) > 2 && w[0] == '-' && flags.ShorthandLookup(w[1:2]) == nil:
			operands = append(operands, w)
		case len(w) == 2 && w[0] == '-' && w != "-":
			if f := flags.ShorthandLookup(w[1:2]); f != nil && f.NoOptDefVal == "" {
				value = true
			}
			keep = append(keep, w)
		default:
			keep = append(keep, w)
		}
	}
	if len(operands) == 0 {
		return args
	}
	// The command's own words (its path, root flags before it) are kept
	// in place: they are plain words or flags the command inherits.
	return append(append(keep, "--"), operands...)
}
