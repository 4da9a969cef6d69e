package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func (r rpcReply) String() string {
	if r.Error != nil {
		return fmt.Sprintf("id %s: error %d", r.ID, r.Error.Code)
	}
	return fmt.Sprintf("id %s: result %.60s", r.ID, r.Result)
}

// serveLines runs ServeStdio over the given input lines until it ends and
// returns its replies.
func serveLines(t *testing.T, s *Server, lines ...string) []rpcReply {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ServeStdio did not return at the end of its input")
	}
	var replies []rpcReply
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var r rpcReply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("reply %q: %v", l, err)
		}
		replies = append(replies, r)
	}
	return replies
}

// TestServeStdioBadLines: a line that is not JSON (or not JSON-RPC) gets a
// JSON-RPC error and the server reads on; every request read before the
// input ends is answered.
func TestServeStdioBadLines(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	replies := serveLines(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`garbage`,
		``,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memex_search","arguments":{"query":"nothing here"}}}`,
		`{"jsonrpc":"1.0","id":4,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	)
	byID := map[string]rpcReply{}
	for _, r := range replies {
		byID[string(r.ID)] = r
	}
	if len(byID) != len(replies) {
		t.Fatalf("replies with the same id: %v", replies)
	}
	if r, ok := byID["null"]; !ok || r.Error == nil || r.Error.Code != -32700 {
		t.Errorf("garbage: want a -32700 error with id null, got %v (%v)", r, ok)
	}
	if r, ok := byID["4"]; !ok || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("not JSON-RPC 2.0: want a -32600 error with its id, got %v (%v)", r, ok)
	}
	for _, id := range []string{"1", "2", "3", "5"} {
		if r, ok := byID[id]; !ok || r.Error != nil || len(r.Result) == 0 {
			t.Errorf("request %s: want a result, got %v (%v)", id, r, ok)
		}
	}
	if !strings.Contains(string(byID["2"].Result), "memex_search") {
		t.Errorf("tools/list: %s", byID["2"].Result)
	}
	if !strings.Contains(string(byID["3"].Result), "no matches") {
		t.Errorf("memex_search after the bad line: %s", byID["3"].Result)
	}
	if len(replies) != 6 {
		t.Errorf("want 6 replies, got %d: %v", len(replies), replies)
	}
}

// TestServeStdioAnswersBeforeEnd: the input ending right after requests
// does not drop their replies.
func TestServeStdioAnswersBeforeEnd(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	replies := serveLines(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memex_search","arguments":{"query":"nothing here"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	)
	got := map[string]bool{}
	for _, r := range replies {
		got[string(r.ID)] = r.Error == nil && len(r.Result) > 0
	}
	for _, id := range []string{`1`, `"list"`, `3`, `4`} {
		if !got[id] {
			t.Errorf("no result for request %s: %v", id, replies)
		}
	}
}

// TestServeStdioReadsOnAfterBadBatchesAndLongLines: lines that used to
// end memex mcp are each answered with an error, and the session goes on.
func TestServeStdioReadsOnAfterBadBatchesAndLongLines(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	long := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxStdioLine) + `"}}`
	replies := serveLines(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[]`,
		`[1,{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`[2, "x"]`,
		long,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
	)
	var errs, pings int
	for _, r := range replies {
		switch {
		case r.Error != nil && r.Error.Code == -32600 && string(r.ID) == "null":
			errs++
		case r.Error == nil && (string(r.ID) == "7" || string(r.ID) == "8"):
			pings++
		case string(r.ID) == "1":
		default:
			t.Errorf("unexpected reply %v", r)
		}
	}
	// [] once, 1, 2 and "x" as members, the long line once.
	if errs != 5 || pings != 2 {
		t.Fatalf("%d invalid-request errors (want 5) and %d pings answered (want 2): %v", errs, pings, replies)
	}
}
