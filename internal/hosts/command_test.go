package hosts

import (
	"slices"
	"testing"
)

// TestShellJoin: plain words stay bare, anything else is single-quoted,
// and shellSplit reads every line back to the same words.
func TestShellJoin(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"go", "test", "./...", "-run=TestX", "a,b+c@d%e:f"}, "go test ./... -run=TestX a,b+c@d%e:f"},
		{[]string{"echo", "it's", "", "two words", "$HOME", `"q"`}, `echo 'it'\''s' '' 'two words' '$HOME' '"q"'`},
		{[]string{"/Applications/My Tools/memex", "hook", "claude-code"}, "'/Applications/My Tools/memex' hook claude-code"},
	} {
		got := ShellJoin(c.words)
		if got != c.want {
			t.Errorf("ShellJoin(%q) = %s, want %s", c.words, got, c.want)
		}
		back, err := shellSplit(got)
		if err != nil || !slices.Equal(back, c.words) {
			t.Errorf("shellSplit(%s) = %q, %v; want %q", got, back, err, c.words)
		}
	}
}
