package archive

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// encodingJSON is the record's JSON as encoding/json writes it, HTML
// escaping off.
func encodingJSON(t *testing.T, sr *storedRecord) []byte {
	t.Helper()
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sr); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(js.Bytes(), []byte{'\n'})
}

// TestRecordJSONAsEncodingJSON: appendRecordJSON writes what
// encoding/json writes, for entries with every field set or empty and
// strings of the bytes that are escaped (quotes, backslashes, control
// characters, DEL, U+2028, U+2029, invalid UTF-8) or not ('<', '&').
func TestRecordJSONAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "Z", "<", ">", "&", "\u2028", "\u2029", "\x00", "\b", "\f", "\x1f", "\x7f", "\"", "\\", "\xff",
		"\xed\xa0\x80", "é", "😀", "\t", "\n", "\r", "/", "\ufffd", "\xc3", " ", "\xf0\x9f", "'"}
	str := func() string {
		var b []byte
		for i := rng.Intn(12); i > 0; i-- {
			b = append(b, pieces[rng.Intn(len(pieces))]...)
		}
		return string(b)
	}
	for i := 0; i < 20000; i++ {
		exit := rng.Intn(300) - 150
		e := memex.Entry{ID: memex.NewID(time.Now()), Project: str(), Session: str(), Agent: str(), Kind: memex.Kind(str()),
			Tool: str(), Input: str(), Created: time.Unix(rng.Int63n(4e9)-1e9, rng.Int63n(1e9)).UTC(),
			Bytes: rng.Int63() - rng.Int63(), Lines: rng.Int63n(10), Tokens: rng.Int63n(1e6), TokensEstimated: rng.Intn(2) == 0,
			Summary: str(), AgentSummary: str(), Hash: str(), Redacted: rng.Intn(3) - 1}
		if rng.Intn(2) == 0 {
			e.Exit = &exit
		}
		for j := rng.Intn(3); j > 0; j-- {
			e.Aliases = append(e.Aliases, str())
		}
		if rng.Intn(3) > 0 {
			e.Attrs = map[string]string{}
			for j := rng.Intn(5); j > 0; j-- {
				e.Attrs[str()] = str()
			}
		}
		if rng.Intn(4) == 0 {
			e.Aliases = []string{}
		}
		sr := storedRecord{Entry: e}
		if rng.Intn(2) == 0 {
			id := memex.NewID(time.Now())
			sr.Body = &id
		}
		if rng.Intn(8) == 0 {
			sr.Hash = str()
		}
		if rng.Intn(8) == 0 {
			sr.ID = json.RawMessage(`"` + e.ID.String() + `"`)
		}
		got, err := appendRecordJSON(nil, &sr)
		if want := encodingJSON(t, &sr); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("entry %d: %v\n got %q\nwant %q", i, err, got, want)
		}
	}
	// A time encoding/json refuses is an error here too.
	sr := storedRecord{Entry: memex.Entry{Created: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if _, err := appendRecordJSON(nil, &sr); err == nil {
		t.Error("year 10000 encoded")
	}
}

// TestRecordJSONKnowsEveryField fails when memex.Entry gains a field:
// appendRecordJSON must then write it too (and this list be updated).
func TestRecordJSONKnowsEveryField(t *testing.T) {
	var got []string
	for f := range reflect.TypeFor[memex.Entry]().Fields() {
		got = append(got, f.Name+" "+f.Type.String()+" "+string(f.Tag))
	}
	want := []string{
		`ID memex.ID json:"id"`, `Project string json:"project,omitempty"`, `Session string json:"session,omitempty"`,
		`Agent string json:"agent,omitempty"`, `Kind memex.Kind json:"kind"`, `Tool string json:"tool,omitempty"`,
		`Input string json:"input,omitempty"`, `Exit *int json:"exit,omitempty"`, `Created time.Time json:"created"`,
		`Bytes int64 json:"bytes"`, `Lines int64 json:"lines"`, `Tokens int64 json:"tokens"`,
		`TokensEstimated bool json:"tokens_estimated,omitempty"`, `Summary string json:"summary"`,
		`AgentSummary string json:"agent_summary,omitempty"`, `Hash string json:"hash"`,
		`Aliases []string json:"aliases,omitempty"`, `Attrs map[string]string json:"attrs,omitempty"`,
		`Redacted int json:"redacted,omitempty"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("memex.Entry's fields:\n%q\nappendRecordJSON writes\n%q", got, want)
	}
	got = nil
	for f := range reflect.TypeFor[storedRecord]().Fields() {
		got = append(got, f.Name+" "+f.Type.String()+" "+string(f.Tag))
	}
	want = []string{`Entry memex.Entry `, `ID json.RawMessage json:"id,omitempty"`, `Body *memex.ID json:"body,omitempty"`,
		`Hash string json:"hash,omitempty"`}
	if !slices.Equal(got, want) {
		t.Errorf("storedRecord's fields:\n%q\nappendRecordJSON writes\n%q", got, want)
	}
}

func BenchmarkRecordJSON(b *testing.B) {
	exit := 0
	sr := storedRecord{Entry: memex.Entry{Project: "github.com/django/django", Session: "django__django-13933", Agent: "mini-swe-agent",
		Kind: memex.KindTool, Tool: "bash", Input: "cd /testbed && grep -rn 'def foo' django/ | head -20", Exit: &exit,
		Created: time.Now().UTC(), Bytes: 1234, Lines: 20, Tokens: 400,
		Summary: "bash: cd /testbed && grep -rn 'def foo' django/ · exit 0 · 20 lines: django/db/models/query.py:123: def foo(self): <x> & y",
		Aliases: []string{"mswe:django__django-13933:12", "django__django-13933#5"}, Attrs: map[string]string{"role": "tool", "model": "gpt"}}}
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var js bytes.Buffer
			enc := json.NewEncoder(&js)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(&sr)
		}
	})
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			_, _ = appendRecordJSON(make([]byte, 0, 512), &sr)
		}
	})
}
