package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/spf13/cobra"
)

// ExactArgs fails as a usage error unless a command is given n arguments.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return Usagef("%s takes %d argument(s), got %d\nUsage: %s", c.Name(), n, len(args), c.UseLine())
		}
		return nil
	}
}

// RangeArgs fails as a usage error unless a command is given lo to hi
// arguments.
func RangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return Usagef("%s takes %d to %d argument(s), got %d\nUsage: %s", c.Name(), lo, hi, len(args), c.UseLine())
		}
		return nil
	}
}

// NeedArgs fails as a usage error saying msg (as "search takes a query")
// when a command is given no argument.
func NeedArgs(msg string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return Usagef("%s\nUsage: %s", msg, c.UseLine())
		}
		return nil
	}
}

// NeedOneArg fails as a usage error saying msg (as "eval retrieval takes
// one FILE") unless a command is given exactly one argument.
func NeedOneArg(msg string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return Usagef("%s\nUsage: %s", msg, c.UseLine())
		}
		return nil
	}
}

// PositiveInts reads a flag of positive numbers separated by commas.
func PositiveInts(flag, v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, Usagef("%s %q: want positive numbers separated by commas", flag, v)
		}
		out = append(out, n)
	}
	return out, nil
}

// Time is a flag that takes a point in time as memex.ParseTime reads it
// (2d, 2026-11-01, RFC 3339), relative to when the flag is parsed, into
// *t. A value it cannot read fails the flag's parse, so the usage error
// names the flag, the value and the forms taken.
func Time(t *time.Time) *TimeValue { return &TimeValue{t: t} }

// TimeValue is the pflag.Value of Time.
type TimeValue struct {
	t   *time.Time
	raw string
}

func (v *TimeValue) Set(s string) error {
	t, err := memex.ParseTime(s, time.Now())
	if err != nil {
		return err
	}
	*v.t, v.raw = t, s
	return nil
}

func (v *TimeValue) String() string { return v.raw }
func (v *TimeValue) Type() string   { return "time" }
