package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// tree is a root with --home and -v, and a command with --json and
// --budget N, as memex's.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "memex"}
	root.PersistentFlags().String("home", "", "")
	root.PersistentFlags().BoolP("verbose", "v", false, "")
	show := &cobra.Command{Use: "show", Run: func(*cobra.Command, []string) {}}
	show.Flags().Bool("json", false, "")
	show.Flags().Int("budget", 0, "")
	root.AddCommand(show)
	return root
}

// A command's flag before the command's name is a usage error that shows
// the line with the flag moved after it, in text even with --json; other
// failures are usage errors, as JSON when the words give --json.
func TestUnparsed(t *testing.T) {
	cobraErr := errors.New(`unknown command "x" for "memex"`)
	for _, c := range []struct {
		args     []string
		want     string
		wantJSON bool
	}{
		{[]string{"--json", "show", "X"}, "unknown flag --json before the command: flags of a command go after its name (memex show X --json)", false},
		{[]string{"--home", "/h", "--budget", "5", "show", "X"}, "unknown flag --budget before the command: flags of a command go after its name (memex --home /h show X --budget 5)", false},
		{[]string{"--nope", "show", "X"}, `unknown flag --nope before the command "show", which has no such flag either`, false},
		{[]string{"x", "--json"}, `unknown command "x" for "memex"` + "\nRun 'memex --help' for usage.", true},
		{[]string{"x", "--", "--json"}, `unknown command "x" for "memex"` + "\nRun 'memex --help' for usage.", false},
	} {
		err := Unparsed(tree(), c.args, cobraErr)
		var je *JSONError
		var ue *UsageError
		if errors.As(err, &je) != c.wantJSON || !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, c.want) {
			t.Errorf("%v: %#v; want %q (JSON %v)", c.args, err, c.want, c.wantJSON)
		}
	}
}

// A name that starts with '-' is moved behind "--"; flags and their
// values stay where they are.
func TestDashOperands(t *testing.T) {
	names := map[string]bool{"show": true}
	for _, c := range []struct{ args, want []string }{
		{[]string{"show", "-fix-auth", "--budget", "5"}, []string{"show", "--budget", "5", "--", "-fix-auth"}},
		{[]string{"show", "--budget", "-5"}, []string{"show", "--budget", "-5"}},
		{[]string{"show", "-v", "abc"}, []string{"show", "-v", "abc"}},
		{[]string{"show", "--", "-x"}, []string{"show", "--", "-x"}},
	} {
		if got := DashOperands(tree(), c.args, names); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %v, want %v", c.args, got, c.want)
		}
	}
}

func TestPositiveInts(t *testing.T) {
	if got, err := PositiveInts("--k", "1, 5,10"); err != nil || !reflect.DeepEqual(got, []int{1, 5, 10}) {
		t.Errorf("1, 5,10: %v %v", got, err)
	}
	for _, v := range []string{"", "0", "1,x", "-2"} {
		var ue *UsageError
		if _, err := PositiveInts("--k", v); !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", v, err)
		}
	}
}

// Confirm does not ask where stdin is no terminal: it says how to
// confirm on the command line, as a usage error.
func TestConfirmOffTerminal(t *testing.T) {
	var stderr strings.Builder
	err := Confirm(strings.NewReader("y\n"), &stderr, "Forget 2 entries for good?", "forget 2 entries for good? add --yes to confirm")
	var ue *UsageError
	if !errors.As(err, &ue) || ue.Msg != "forget 2 entries for good? add --yes to confirm" || stderr.Len() != 0 {
		t.Errorf("%v, stderr %q", err, stderr.String())
	}
}
