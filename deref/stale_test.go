package deref_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/summarize"
)

const tokenGo = "package auth\n\nfunc Refresh() error {\n\treturn nil\n}\n"

func addRead(t *testing.T, ctx context.Context, st *archive.Store, root, rel, content string, withAttr bool) memex.Entry {
	t.Helper()
	var body strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		body.WriteString(strings.Repeat(" ", 5) + strconv.Itoa(i+1) + "→" + l + "\n")
	}
	e := memex.Entry{Project: "github.com/acme/demo", Session: "s1", Agent: "claude-code", Kind: memex.KindTool, Tool: "Read",
		Input: `{"file_path":"` + filepath.Join(root, rel) + `"}`, Attrs: map[string]string{"cwd": root}}
	if withAttr {
		ingest.RecordShown(&e, root, []byte(body.String()))
		if e.Attrs["shows"] == "" {
			t.Fatal("RecordShown recorded nothing")
		}
	}
	got, err := st.Add(ctx, e, strings.NewReader(body.String()))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestStaleMarks(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	root := t.TempDir()
	write := func(rel, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("auth/token.go", tokenGo)
	write("auth/keep.go", tokenGo)
	write("auth/moved.go", tokenGo)
	write("auth/gone.go", tokenGo)
	changed := addRead(t, ctx, s, root, "auth/token.go", tokenGo, true)
	kept := addRead(t, ctx, s, root, "auth/keep.go", tokenGo, true)
	moved := addRead(t, ctx, s, root, "auth/moved.go", tokenGo, false) // an entry of an older store: derived on read
	gone := addRead(t, ctx, s, root, "auth/gone.go", tokenGo, true)

	// The code moves on after the reads.
	write("auth/token.go", strings.Replace(tokenGo, "return nil", "return refresh()", 1))
	write("auth/moved.go", "// Package auth.\n"+tokenGo)
	os.Remove(filepath.Join(root, "auth/gone.go"))

	r := deref.New(s)
	co := deref.NewCheckout(root, "github.com/acme/demo")
	res, err := r.Deref(ctx, []string{changed.ID.String(), kept.ID.String(), moved.ID.String(), gone.ID.String()},
		deref.Options{Budget: 2000, Checkout: co})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{deref.MarkChanged, deref.MarkCurrent, deref.MarkCurrent, deref.MarkGone}
	for i, it := range res.Items {
		if it.Mark != want[i] {
			t.Errorf("item %d: mark %q, want %q (%+v)", i, it.Mark, want[i], it.Evidence)
		}
	}
	ev := res.Items[0].Evidence[0]
	if ev.Path != "auth/token.go" || ev.Line != 4 || ev.Now != "\treturn refresh()" {
		t.Errorf("changed evidence %+v: want line 4 now the new return", ev)
	}
	if res.Items[2].Evidence[0].Moved != 2 {
		t.Errorf("moved evidence %+v: want lines now starting at 2", res.Items[2].Evidence[0])
	}
	if !strings.Contains(res.Text, "file changed since: auth/token.go:1-5 (line 4 now `return refresh()`)") ||
		!strings.Contains(res.Text, "file gone: auth/gone.go") {
		t.Errorf("text lacks the marks:\n%s", res.Text)
	}
	if res.Used > res.Budget || summarize.Count([]byte(res.Text)) != res.Used {
		t.Errorf("used %d of %d (count %d)", res.Used, res.Budget, summarize.Count([]byte(res.Text)))
	}

	// Another project's checkout marks nothing.
	res, err = r.Deref(ctx, []string{changed.ID.String()}, deref.Options{Checkout: deref.NewCheckout(root, "github.com/acme/other")})
	if err != nil || res.Items[0].Mark != "" {
		t.Errorf("other project: mark %q, %v", res.Items[0].Mark, err)
	}

	// Context marks its lines too, within the budget. The lines hold the
	// temporary directory, whose random digits tokenize to a varying
	// count: 400 tokens fitted all four entries only most of the time.
	const budget = 800
	cres, err := r.Context(ctx, deref.ContextOptions{Session: "s1", Budget: budget, Checkout: co})
	if err != nil {
		t.Fatal(err)
	}
	if cres.Entries[0].Mark != deref.MarkChanged || cres.Entries[3].Mark != deref.MarkGone || !strings.Contains(cres.Text, "file changed since") {
		t.Errorf("context marks: %+v\n%s", cres.Entries, cres.Text)
	}
	if cres.Used > budget {
		t.Errorf("context used %d of %d", cres.Used, budget)
	}
}

// Budgets stay hard bounds when marks lengthen the headers.
func TestStaleMarksKeepBudgets(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	root := t.TempDir()
	big := strings.Repeat("line of code that will change\n", 9)
	os.MkdirAll(filepath.Join(root, "a"), 0o755)
	os.WriteFile(filepath.Join(root, "a/f.go"), []byte(big), 0o644)
	e := addRead(t, ctx, s, root, "a/f.go", big, true)
	os.WriteFile(filepath.Join(root, "a/f.go"), []byte(strings.Repeat("a very different line of text now stands here\n", 9)), 0o644)
	r := deref.New(s)
	for budget := 20; budget <= 200; budget += 3 {
		res, err := r.Deref(ctx, []string{e.ID.String()}, deref.Options{Budget: budget, Checkout: deref.NewCheckout(root, "")})
		if err != nil {
			continue // too small: an error naming the minimum
		}
		if n := summarize.Count([]byte(res.Text)); n > budget || res.Used != n {
			t.Fatalf("budget %d: used %d, counted %d", budget, res.Used, n)
		}
		if !strings.Contains(res.Text, "file changed since") {
			t.Fatalf("budget %d: mark missing:\n%s", budget, res.Text)
		}
	}
}
