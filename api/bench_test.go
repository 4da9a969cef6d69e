package api

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// BenchmarkHTTPAdd measures POST /v1/entries of a 4 KB tool output on an
// in-memory archive (handler cost, no network, no fsync).
func BenchmarkHTTPAdd(b *testing.B) {
	s, _ := newBenchServer(b)
	body := strings.Repeat("ok  \tgithub.com/x/pkg\t0.012s\n", 140)
	h := s.Handler()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/v1/entries?tool=bash&session=bench", strings.NewReader(body+fmt.Sprint(i)))
		r.Host = "localhost"
		h.ServeHTTP(w, r)
		if w.Code != 201 {
			b.Fatal(w.Code, w.Body)
		}
	}
}

// BenchmarkHTTPDeref measures POST /v1/deref of one 2,000-line entry
// within 2,000 tokens.
func BenchmarkHTTPDeref(b *testing.B) {
	s, st := newBenchServer(b)
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %d of the build log\n", i)
	}
	sb.WriteString("FAIL: TestX nil map\n")
	e := mustAdd(b, st, memex.Entry{}, sb.String())
	req := fmt.Sprintf(`{"refs":[%q],"budget":2000,"query":"nil map"}`, e.ID)
	h := s.Handler()
	for b.Loop() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/v1/deref", strings.NewReader(req))
		r.Host = "localhost"
		r.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body)
		}
	}
}
