package ingest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// orderSink is a memSink that notes the order of its writes.
type orderSink struct {
	*memSink
	log []string
}

func (o *orderSink) Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	o.log = append(o.log, "add "+e.Session+" "+e.Input)
	return o.memSink.Add(ctx, e, body)
}

func (o *orderSink) SetState(ctx context.Context, key string, value []byte) error {
	o.log = append(o.log, "state "+filepath.Base(key))
	return o.memSink.SetState(ctx, key, value)
}

// Files read ahead on other goroutines are written as one goroutine reading
// them in turn writes them: file by file in the order found, each file's
// entries and then its progress, the bodies as the policy made them, and
// the problems of each file warned in that order too.
func TestRunWritesInFileOrder(t *testing.T) {
	dir := t.TempDir()
	var want, wantWarn []string
	for f := range 40 {
		name := fmt.Sprintf("f%02d", f)
		var b strings.Builder
		for i := range 3 {
			fmt.Fprintf(&b, `{"content":"out %d","input":"%s-%d","time":"2026-01-0%dT00:00:00Z"}`+"\n", i, name, i, i+1)
		}
		b.WriteString("not json\n")
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			want = append(want, fmt.Sprintf("add %s %s-%d", name, name, i))
		}
		want = append(want, "state "+name+".jsonl")
		wantWarn = append(wantWarn, filepath.Join(dir, name+".jsonl")+":4")
	}
	sink := &orderSink{memSink: newMemSink()}
	var warned []string
	rep, err := Run(context.Background(), sink, Options{Format: JSONL, Paths: []string{dir},
		Warn: func(msg string) { warned = append(warned, msg) },
		// A policy that changes the body: what is stored is what it made.
		Policy: func(e memex.Entry, body []byte) (memex.Entry, []byte, map[string]int) {
			return e, []byte(strings.ToUpper(string(body))), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sink.log, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("writes:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if len(warned) != len(wantWarn) {
		t.Fatalf("warnings %q, want one per file", warned)
	}
	for i, w := range warned {
		if !strings.HasPrefix(w, wantWarn[i]+":") {
			t.Fatalf("warning %d is %q, want it of %s", i, w, wantWarn[i])
		}
	}
	if rep.Files != 40 || rep.Added != 120 || rep.SkippedTotal() != 40 {
		t.Fatalf("report %+v", rep)
	}
	if es := sink.session("f07"); len(es) != 3 || es[0].Input != "f07-0" || sink.body(es[0].ID) != "OUT 0" {
		t.Fatalf("session f07: %+v", es)
	}
	// Run again: nothing changed, nothing written.
	sink.log = nil
	rep, err = Run(context.Background(), sink, Options{Format: JSONL, Paths: []string{dir}})
	if err != nil || rep.Unchanged != 40 || len(sink.log) != 0 {
		t.Fatalf("second run: %v, %+v, writes %q", err, rep, sink.log)
	}
}
