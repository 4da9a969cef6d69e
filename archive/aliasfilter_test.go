package archive

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/memex-archive/memex"
)

// TestAliasFilterHasNoFalseNegative: once a process has looked up enough
// aliases for the store to build its filter, every alias an entry was
// added with is still found, those added before the filter and those
// added after it (past the size it was built for, so that it is built
// again), and most aliases that name nothing are ruled out by the filter
// alone.
func TestAliasFilterHasNoFalseNegative(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	ids := map[string]memex.ID{}
	addN := func(from, to int) {
		for i := from; i < to; i++ {
			a := fmt.Sprintf("toolu_%d", i)
			ids[a] = add(t, s, memex.Entry{Project: "p", Aliases: []string{a}}, []byte("x")).ID
		}
	}
	lookAll := func(when string) {
		t.Helper()
		for a, want := range ids {
			if got, err := s.Lookup(ctx, a, "p"); err != nil || got != want {
				t.Fatalf("%s: lookup %s = %v, %v; want %v", when, a, got, err, want)
			}
		}
	}
	addN(0, 300)
	for i := 0; i < aliasFilterAfter; i++ {
		if _, err := s.Lookup(ctx, fmt.Sprintf("absent_%d", i), "p"); !errors.Is(err, memex.ErrNotFound) {
			t.Fatalf("absent alias: %v", err)
		}
	}
	if s.aliases.bits == nil {
		t.Fatalf("no filter after %d look-ups", aliasFilterAfter)
	}
	lookAll("aliases added before the filter")
	addN(300, 12000) // past the 5,461 aliases the first filter holds
	lookAll("aliases added after the filter")
	ruledOut := 0
	for i := 0; i < 1000; i++ {
		if ok, err := s.aliases.mayName(ctx, s, fmt.Sprintf("never_%d", i), "p"); err != nil {
			t.Fatal(err)
		} else if !ok {
			ruledOut++
		}
	}
	if ruledOut < 950 {
		t.Fatalf("the filter ruled out %d of 1000 absent aliases", ruledOut)
	}
	// By project: an alias of another project's entry is ruled out (an
	// import of the same task under another project), one of no project
	// matches every project, and project "" matches them all.
	other := add(t, s, memex.Entry{Project: "q", Aliases: []string{"task:1"}}, []byte("q")).ID
	none := add(t, s, memex.Entry{Aliases: []string{"task:2"}}, []byte("none")).ID
	for _, c := range []struct {
		alias, project string
		want           memex.ID
	}{{"task:1", "q", other}, {"task:1", "", other}, {"task:1", "p", memex.ID{}},
		{"task:2", "p", none}, {"task:2", "q", none}, {"task:2", "", none}} {
		got, err := s.Lookup(ctx, c.alias, c.project)
		if c.want.IsZero() != errors.Is(err, memex.ErrNotFound) || got != c.want {
			t.Errorf("lookup %s in %q = %v, %v; want %v", c.alias, c.project, got, err, c.want)
		}
	}
	if ok, _ := s.aliases.mayName(ctx, s, "task:1", "p"); ok {
		t.Log("task:1 in p: a false positive of the filter (rare, allowed)")
	}
}

// TestAliasFilterWhileAdding: look-ups that build the filter run beside
// Adds; an alias is found by every look-up that starts after its Add
// returned.
func TestAliasFilterWhileAdding(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Go(func() {
			for i := 0; i < 600; i++ {
				a := fmt.Sprintf("w%d_%d", w, i)
				e, err := s.Add(ctx, memex.Entry{Project: "p", Aliases: []string{a}}, nil)
				if err != nil {
					errs <- err
					return
				}
				if got, err := s.Lookup(ctx, a, "p"); err != nil || got != e.ID {
					errs <- fmt.Errorf("lookup %s right after its add = %v, %v", a, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if s.aliases.bits == nil {
		t.Fatal("the look-ups built no filter")
	}
}

// TestAliasFilterOfAVersion2Store: a version 2 alias key carries no
// project (its entry's record does): the filter must let every look-up
// of such an alias read the store, whatever the project asked for.
func TestAliasFilterOfAVersion2Store(t *testing.T) {
	dir := copyDir(t, filepath.Join("testdata", "v2store"))
	s, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var aliases []string
	if err := s.scanPrefix(ctx, []byte{prefixAlias}, func(k, _ []byte) error {
		l, w := binary.Uvarint(k[1:])
		aliases = append(aliases, string(k[1+w:1+w+int(l)]))
		return nil
	}); err != nil || len(aliases) == 0 {
		t.Fatalf("aliases of the v2 store: %v, %v", aliases, err)
	}
	projects := []string{"", "nowhere"}
	list, err := s.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range list {
		projects = append(projects, si.Project)
	}
	lookups := func() map[string]string {
		out := map[string]string{}
		for _, a := range aliases {
			for _, p := range projects {
				id, err := s.Lookup(ctx, a, p)
				out[a+" in "+p] = fmt.Sprint(id, errors.Is(err, memex.ErrNotFound))
			}
		}
		return out
	}
	if len(aliases)*len(projects) >= aliasFilterAfter {
		t.Fatalf("%d look-ups would build the filter", len(aliases)*len(projects))
	}
	before := lookups()
	for i := 0; i < aliasFilterAfter; i++ {
		_, _ = s.Lookup(ctx, fmt.Sprintf("absent_%d", i), "nowhere")
	}
	if s.aliases.bits == nil {
		t.Fatal("no filter")
	}
	if after := lookups(); !reflect.DeepEqual(before, after) {
		t.Fatalf("with the filter %v, without %v", after, before)
	}
}
