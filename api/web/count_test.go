package web

import "testing"

func TestCountSaysOneInTheSingular(t *testing.T) {
	for n, want := range map[int]string{0: "0 failures", 1: "1 failure", 2: "2 failures", 2048: "2,048 failures"} {
		if got := count(n, "failure", "failures"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
