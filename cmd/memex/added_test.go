package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// add --json and run --json print the same fields of the entry archived,
// run's with its exit status, in the order their help gives them.
func TestAddedJSON(t *testing.T) {
	home := t.TempDir()
	keys := func(args []string, stdin string) []string {
		t.Helper()
		r := run(t, home, []byte(stdin), args...)
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		var out []string
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if k, ok := tok.(string); ok && dec.More() {
				out = append(out, k)
				var v json.RawMessage
				dec.Decode(&v)
			}
		}
		return out
	}
	if got := keys([]string{"add", "--json", "-"}, "a note\n"); !slices.Equal(got, []string{"id", "summary", "tokens", "bytes"}) {
		t.Errorf("add --json: %v", got)
	}
	if got := keys([]string{"run", "--json", "--quiet", "--", "sh", "-c", "exit 3"}, ""); !slices.Equal(got, []string{"id", "summary", "tokens", "bytes", "exit"}) {
		t.Errorf("run --json: %v", got)
	}
	if got := keys([]string{"run", "--json", "--quiet", "--", "echo", "key=" + testAWSKey}, ""); !slices.Equal(got, []string{"id", "summary", "tokens", "bytes", "exit", "redacted"}) {
		t.Errorf("run --json of a secret: %v", got)
	}
}
