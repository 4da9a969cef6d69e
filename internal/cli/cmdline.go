package cli

import (
	"errors"
	"strings"

	"github.com/memex-archive/memex/internal/hosts"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Unparsed is the error of a command line that cobra failed on before any
// command ran (an unknown command, flag or argument count): a usage error,
// as a JSONError when the words give --json (the flags were not read, or
// not all, so they are looked for in the words themselves). A command's
// flag given before the command's name is told in text how to give it: a
// --json there is not the command's.
func Unparsed(root *cobra.Command, args []string, err error) error {
	var ue *UsageError
	if !errors.As(err, &ue) {
		if merr := flagBeforeCommand(root, args); merr != nil {
			return merr
		}
		err = Usagef("%s\nRun 'memex --help' for usage.", err)
	}
	if asksJSON(args) {
		return &JSONError{Err: err}
	}
	return err
}

// asksJSON reports whether args, a command line that failed to parse,
// give --json (before any --, after which the words are a command's own).
func asksJSON(args []string) bool {
	for _, w := range args {
		switch w {
		case "--":
			return false
		case "--json", "--json=true", "--json=1", "--json=t", "--json=TRUE", "--json=True":
			return true
		}
	}
	return false
}

// flagBeforeCommand explains a command line that gives a command's flag
// before the command's name (memex --json search nil). Cobra reads an
// unknown flag there as taking the next word for its value, so it reports
// the word after the command name as an unknown command. It returns nil
// when args hold no such flag.
//
// Such a line is not reordered and run: which words belong to a flag
// before the command cannot be known until the command is (--json takes
// none, --budget one), so a guess could run something else than meant.
func flagBeforeCommand(root *cobra.Command, args []string) error {
	var before []string // the words before the command's name
	for i, w := range args {
		if w == "--" {
			return nil
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			if sub, _, err := root.Find(args[i:]); err == nil && sub != root {
				return misplacedFlag(root, sub, before, args[i:])
			}
		}
		before = append(before, w)
	}
	return nil
}

// misplacedFlag is the usage error for the words before given ahead of
// sub, the command that rest starts with: the first flag that is not the
// root's, and the command line with the command's flags moved after it.
// The root's flags (--home, -v) stay where they are: they go anywhere.
func misplacedFlag(root, sub *cobra.Command, before, rest []string) error {
	var flags, keep []string // the command's flags, and the root's flags with their values
	for i := 0; i < len(before); i++ {
		w := before[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f := root.PersistentFlags().Lookup(name)
		if !strings.HasPrefix(w, "--") {
			f = nil
			if strings.HasPrefix(w, "-") && len(name) == 1 {
				f = root.PersistentFlags().ShorthandLookup(name)
			}
		}
		if f == nil && (name == "help" || name == "h") {
			return nil // memex --help search: cobra's own business
		}
		if f != nil || !strings.HasPrefix(w, "-") {
			// A root flag, or the value of the flag before it.
			keep = append(keep, w)
			if f != nil && !hasValue && f.NoOptDefVal == "" && i+1 < len(before) {
				i++
				keep = append(keep, before[i])
			}
			continue
		}
		flags = append(flags, w)
		if !hasValue {
			if g := sub.Flags().Lookup(name); g != nil && g.NoOptDefVal == "" && i+1 < len(before) {
				i++
				flags = append(flags, before[i])
			}
		}
	}
	if len(flags) == 0 {
		return nil
	}
	name := strings.TrimLeft(flags[0], "-")
	name, _, _ = strings.Cut(name, "=")
	if sub.Flags().Lookup(name) == nil && (len(name) != 1 || sub.Flags().ShorthandLookup(name) == nil) {
		return Usagef("unknown flag %s before the command %q, which has no such flag either\nRun '%s --help' for usage.",
			flags[0], sub.Name(), sub.CommandPath())
	}
	line := append([]string{"memex"}, keep...)
	line = append(append(line, rest...), flags...)
	return Usagef("unknown flag %s before the command: flags of a command go after its name (%s)",
		flags[0], hosts.ShellJoin(line))
}

// DashOperands lets the operand of the commands named in names (whose
// operand is a name that agents and scripts may start with '-', as
// "-fix-auth") start with '-': a word of the command line that starts with
// a single '-', is not one of the command's flags and is not a flag's
// value is moved behind "--", where cobra reads it as the operand.
// Everything else is left as it is, so a mistyped flag of another command
// is still a usage error.
func DashOperands(root *cobra.Command, args []string, names map[string]bool) []string {
	c, _, err := root.Find(args)
	if err != nil || c == root || !names[c.Name()] {
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
