package deref_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// FuzzDeref checks, for arbitrary content, query and budget, that deref
// never panics, never exceeds the budget, and that every window is the
// exact bytes of the body at the offsets it claims.
func FuzzDeref(f *testing.F) {
	s := openStore(f)
	r := deref.New(s)
	f.Add("hello\nworld\n", "", 50)
	f.Add("", "", 60)
	f.Add(numbered(300, nil), "package 7", 200)
	f.Add(strings.Repeat("x", 5000), "x", 100)
	f.Add("no newline at the end", "end", 40)
	f.Add("\n\n\n\n", "", 30)
	f.Add("é\xff\xfe\n"+strings.Repeat("日本語 ", 3000)+"\nerror: boom\n", "語", 120)
	f.Add(numbered(50, nil), "line 0049 line 0002", 0)
	f.Fuzz(func(t *testing.T, body, query string, budget int) {
		if budget > 5000 || budget < -1 {
			budget %= 5000
		}
		e, err := s.Add(context.Background(), memex.Entry{Kind: memex.KindTool}, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: budget, Query: query})
		if err != nil {
			// Too small a budget must say so and name the minimum; any
			// budget of 600 tokens or more holds one entry's minimum.
			if errors.Is(err, memex.ErrBudgetTooSmall) && strings.Contains(err.Error(), "need at least") && budget > 0 && budget < 600 {
				return
			}
			t.Fatal(err)
		}
		b := budget
		if b <= 0 {
			b = deref.DefaultBudget
		}
		check(t, res, b, map[string]string{e.ID.String(): body})
	})
}
