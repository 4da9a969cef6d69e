package api

import (
	"context"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestCompressUnderAUsedKeyReplacesIt: memex_compress with a key used
// before used to leave the key naming two entries, readable by neither.
// The key names the newest block; the older stays readable by its ID.
func TestCompressUnderAUsedKeyReplacesIt(t *testing.T) {
	s, st := newTestServer(t, "", Options{Session: func() string { return "live" }, Agent: "claude-code"})
	mustAdd(t, st, memex.Entry{Session: "live", Project: "p", Agent: "claude-code"}, "captured\n")
	cs := connectMCP(t, s)
	ctx := context.Background()
	var ids []memex.ID
	for _, content := range []string{"plan: first try\n", "plan: second try\n"} {
		if text, isErr := call(t, cs, "memex_compress", map[string]any{"project": "p", "summary": "plan",
			"blocks": []map[string]any{{"key": "ctx_plan", "content": content}}}); isErr {
			t.Fatalf("compress: %s", text)
		}
		id, err := st.Resolve(ctx, "ctx_plan", "")
		if err != nil {
			t.Fatalf("resolve ctx_plan after compressing %q: %v", content, err)
		}
		ids = append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Fatal("the second block did not take the key")
	}
	text, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{"ctx_plan"}})
	if isErr || !strings.Contains(text, "second try") || strings.Contains(text, "first try") {
		t.Fatalf("read ctx_plan: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_read", map[string]any{"ids": []string{ids[0].String()}})
	if isErr || !strings.Contains(text, "first try") {
		t.Fatalf("read the older block by its ID: %v %q", isErr, text)
	}
}
