package archive

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/memex-archive/memex"
)

// TestStateNames: the names under a prefix, in order, and none beside it;
// DeleteStates removes exactly the names given; SetStateSoon's values
// read back after a reopen.
func TestStateNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a/2", "a/1", "a", "a0", "b/1"} {
		if err := s.SetStateSoon(ctx, n, []byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names, err := s.StateNames(ctx, "a/")
	if err != nil || !reflect.DeepEqual(names, []string{"a/1", "a/2"}) {
		t.Fatalf("names under a/: %q, %v", names, err)
	}
	if err := s.DeleteStates(ctx, []string{"a/1", "b/1", "never"}); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{"a/1": false, "b/1": false, "a/2": true, "a": true, "a0": true} {
		v, err := s.GetState(ctx, n)
		if got := err == nil; got != want || (got && string(v) != n) {
			t.Errorf("state %q after the delete: %q, %v (want kept: %v)", n, v, err, want)
		} else if !want && !errors.Is(err, memex.ErrNotFound) {
			t.Errorf("state %q: %v, want not found", n, err)
		}
	}
}
