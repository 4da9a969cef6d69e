package memex

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseLineRange(t *testing.T) {
	for _, c := range []struct {
		in       string
		from, to int64
		ok       bool
	}{
		{"3:5", 3, 5, true}, {"7", 7, 7, true}, {"7:", 7, 0, true}, {" 2 : 4 ", 2, 4, true},
		{"0:3", 0, 0, false}, {"5:3", 0, 0, false}, {"3-5", 0, 0, false}, {":5", 0, 0, false}, {"", 0, 0, false}, {"a:b", 0, 0, false},
	} {
		from, to, err := ParseLineRange(c.in)
		if c.ok != (err == nil) || from != c.from || to != c.to {
			t.Errorf("ParseLineRange(%q) = %d, %d, %v", c.in, from, to, err)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: error %v is not ErrInvalid", c.in, err)
		}
	}
}

func TestIDsAreMonotonicAndTimeOrdered(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	prev := NewID(t0)
	for i := 0; i < 1000; i++ {
		id := NewID(t0) // same millisecond: the random part increments
		if id.Compare(prev) <= 0 {
			t.Fatalf("%s not after %s", id, prev)
		}
		prev = id
	}
	if later := NewID(t0.Add(time.Millisecond)); later.Compare(prev) <= 0 || !later.Time().Equal(t0.Add(time.Millisecond)) {
		t.Fatalf("later ID %s (time %v)", later, later.Time())
	}
	if _, err := ParseID("00000000000000000000000000"); !errors.Is(err, ErrInvalid) {
		t.Fatal("the zero ID parsed")
	}
}

func FuzzParseIDRoundTrip(f *testing.F) {
	f.Add("01JD8X3N6Q4W0G2Y7T5R9KZC1M")
	f.Add("01jd8x3n6q4w0g2y7t5r9kzc1m")
	f.Add("not an id")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			return
		}
		again, err := ParseID(id.String())
		if err != nil || again != id {
			t.Fatalf("ParseID(%q) = %s, round trip %s, %v", s, id, again, err)
		}
	})
}

func TestDisplaySummarySaysWhatWasRedacted(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		want string
	}{
		{Entry{Summary: "bash: env · 3 lines"}, "bash: env · 3 lines"},
		{Entry{Summary: "bash: env · 3 lines", Redacted: 1}, "bash: env · 3 lines · 1 secret redacted"},
		{Entry{Summary: "derived", AgentSummary: "mine", Redacted: 2}, "mine · 2 secrets redacted"},
		{Entry{Redacted: 3}, "3 secrets redacted"},
	} {
		if got := c.e.DisplaySummary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

// TestErrorSentence: an Error matches its class and its cause, and reads
// as its own sentence however it is wrapped; an error without one reads
// as it is.
func TestErrorSentence(t *testing.T) {
	cause := errors.New("disk on fire")
	e := Errorf(ErrNotFound, "session %q: not found", "x").WithHint("memex sessions lists them")
	e.Err = cause
	wrapped := fmt.Errorf("deref: context: %w", fmt.Errorf("archive: %w", e))
	if !errors.Is(wrapped, ErrNotFound) || !errors.Is(wrapped, cause) || errors.Is(wrapped, ErrInvalid) {
		t.Fatalf("errors.Is on %v", wrapped)
	}
	if got, want := Sentence(wrapped), `session "x": not found; memex sessions lists them`; got != want {
		t.Fatalf("Sentence = %q, want %q", got, want)
	}
	outer := fmt.Errorf("ingest: %w", &Error{Kind: ErrInvalid, What: "entries archived, indexing failed", Err: wrapped})
	if got := Sentence(outer); got != "entries archived, indexing failed" || !errors.Is(outer, ErrNotFound) {
		t.Fatalf("outermost Error: %q", got)
	}
	plain := fmt.Errorf("archive: get x: %w", ErrCorrupt)
	if Sentence(plain) != plain.Error() {
		t.Fatalf("Sentence of a plain error = %q", Sentence(plain))
	}
}

func TestIsDiskFull(t *testing.T) {
	for err, want := range map[error]bool{
		&os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}: true,
		fmt.Errorf("sync: %w", syscall.EDQUOT):                     true,
		fmt.Errorf("spool: %w", ErrDiskFull):                       true,
		&os.PathError{Op: "open", Path: "x", Err: syscall.EACCES}:  false,
		nil: false,
	} {
		if got := IsDiskFull(err); got != want {
			t.Errorf("IsDiskFull(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestLooksLikeIDAsParseID: LooksLikeID says yes exactly when ParseID
// parses, for strings of every length, whatever the shortcut takes.
func TestLooksLikeIDAsParseID(t *testing.T) {
	id := NewID(time.Now()).String()
	for _, s := range []string{"", "x", id, strings.ToLower(id), id[:25], id + "0", " " + id,
		"cc:0f3e1d2c-1111-2222-3333-444455556666", "mswe:django__django-13933:12",
		// "ſ" upper-cases to "S": 27 bytes that parse.
		"ſ" + id[1:], "01JD8X3N6Q4W0G2Y7T5R9KZC1ſ", "ı" + id[1:]} {
		_, err := ParseID(s)
		if got := LooksLikeID(s); got != (err == nil) {
			t.Errorf("LooksLikeID(%q) = %v, ParseID error %v", s, got, err)
		}
	}
}
