package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// hasTerm reports whether any term of the content field contains word:
// what the index's files hold of a document, deleted or not, until its
// segment is rewritten.
func hasTerm(t *testing.T, ix *Index, word string) bool {
	t.Helper()
	d, err := ix.bi.FieldDict(fContent)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for {
		e, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return false
		}
		if strings.Contains(e.Term, word) {
			return true
		}
	}
}

// TestPurgeRewritesTheSegmentsOfDeletedEntries: Delete only marks a
// document deleted, its terms stay in its segment's file (an index of one
// segment keeps them for good). After Purge no segment holds them and no
// file of the segments that did is left.
func TestPurgeRewritesTheSegmentsOfDeletedEntries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	var docs []Doc
	for i := range 50 {
		docs = append(docs, Doc{Entry: memex.Entry{ID: memex.NewID(t0.Add(time.Duration(i) * time.Second)), Kind: "note"},
			Content: []byte("ordinary words here")})
	}
	secret := memex.Entry{ID: memex.NewID(t0.Add(time.Hour)), Kind: "note"}
	docs = append(docs, Doc{Entry: secret, Content: []byte("the token is zqxjkvbw4242 and more")})
	if err := ix.Add(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err := ix.Delete(ctx, secret.ID); err != nil {
		t.Fatal(err)
	}
	if !hasTerm(t, ix, "zqxjkvbw4242") {
		t.Fatal("a deleted document's terms are gone without a purge: the test shows nothing")
	}
	if err := ix.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if hasTerm(t, ix, "zqxjkvbw4242") {
		t.Error("the deleted document's terms are still in the index after Purge")
	}
	for _, p := range before {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("segment file %s of before the purge is still there", filepath.Base(p))
		}
	}
	if n, _ := ix.Count(); n != 50 {
		t.Errorf("%d documents left, want 50", n)
	}
	res, err := ix.Search(ctx, Query{Text: "ordinary"})
	if err != nil || res.Total != 50 {
		t.Errorf("search after purge: %d hits, %v", res.Total, err)
	}
}
