package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
	"github.com/memex-archive/memex/summarize"
)

func openMem(t testing.TB) *Store {
	t.Helper()
	s, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func add(t testing.TB, s *Store, e memex.Entry, body []byte) memex.Entry {
	t.Helper()
	got, err := s.Add(context.Background(), e, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func readAll(t testing.TB, s *Store, id memex.ID) []byte {
	t.Helper()
	b, err := s.ReadAll(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bigText makes n bytes of log-like lines.
func bigText(n int, seed int64) []byte {
	r := rand.New(rand.NewSource(seed))
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d: ok pkg/%d/file_%d.go:%d value=%x\n", i, r.Intn(50), r.Intn(400), r.Intn(999), r.Int63())
	}
	return b.Bytes()[:n]
}

func TestRoundTripIsByteIdentical(t *testing.T) {
	s := openMem(t)
	cases := map[string][]byte{
		"empty":        {},
		"one line":     []byte("hello\n"),
		"no newline":   []byte("hello"),
		"binary":       {0, 1, 2, 0xff, 0xfe, '\n', 0, 0x80},
		"invalid utf8": []byte("caf\xe9 \xc3\x28 ok\n"),
		"crlf":         []byte("a\r\nb\r\n"),
		"multi chunk":  bigText(3*ChunkSize+123, 1),
		"streamed":     randomBytes(FlushSize*2+ChunkSize/2, 2), // passes through unsynced flushes
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			e := add(t, s, memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "cat x"}, body)
			if got := readAll(t, s, e.ID); !bytes.Equal(got, body) {
				t.Fatalf("round trip differs: got %d bytes, want %d", len(got), len(body))
			}
			if e.Bytes != int64(len(body)) {
				t.Errorf("Bytes = %d, want %d", e.Bytes, len(body))
			}
			want := int64(bytes.Count(body, []byte("\n")))
			if len(body) > 0 && body[len(body)-1] != '\n' {
				want++
			}
			if e.Lines != want {
				t.Errorf("Lines = %d, want %d", e.Lines, want)
			}
			if len(e.Summary) == 0 || len(e.Summary) > 200 {
				t.Errorf("summary %q", e.Summary)
			}
			got, err := s.Get(context.Background(), e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Hash != e.Hash || got.Tokens != e.Tokens || got.Summary != e.Summary {
				t.Errorf("stored metadata %+v differs from returned %+v", got, e)
			}
		})
	}
}

// randomBytes makes n incompressible bytes (with a newline now and then),
// so that the compressed size passes FlushSize.
func randomBytes(n int, seed int64) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

func TestLinesReadsExactRanges(t *testing.T) {
	s := openMem(t)
	body := bigText(5*ChunkSize+77, 3) // ends without a newline
	e := add(t, s, memex.Entry{}, body)
	lines := splitLines(body)
	if int64(len(lines)) != e.Lines {
		t.Fatalf("Lines = %d, want %d", e.Lines, len(lines))
	}
	n := int64(len(lines))
	ranges := [][2]int64{{1, 1}, {1, 3}, {2, 2}, {n, n}, {n - 5, 0}, {n / 2, n/2 + 2000}, {1, n + 10}, {n - 1, n + 1}}
	// Lines that straddle chunk boundaries.
	var pos int64
	for i, l := range lines {
		end := pos + int64(len(l))
		if pos/ChunkSize != (end-1)/ChunkSize {
			ranges = append(ranges, [2]int64{int64(i + 1), int64(i + 1)}, [2]int64{int64(i), int64(i + 2)})
		}
		pos = end
	}
	for _, r := range ranges {
		rc, err := s.Lines(context.Background(), e.ID, r[0], r[1])
		if err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		hi := r[1]
		if hi <= 0 || hi > n {
			hi = n
		}
		want := bytes.Join(lines[r[0]-1:hi], nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("lines %d:%d: got %d bytes, want %d", r[0], r[1], len(got), len(want))
		}
	}
	for _, bad := range [][2]int64{{0, 1}, {3, 2}, {n + 1, 0}} {
		if _, err := s.Lines(context.Background(), e.ID, bad[0], bad[1]); !errors.Is(err, memex.ErrInvalid) {
			t.Errorf("lines %v: err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestDedupStoresIdenticalBodiesOnce(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	body := bigText(ChunkSize+10, 4)
	a := add(t, s, memex.Entry{Session: "s1"}, body)
	b := add(t, s, memex.Entry{Session: "s2"}, body)
	big := randomBytes(FlushSize+3*ChunkSize, 5)
	c := add(t, s, memex.Entry{}, big)
	d := add(t, s, memex.Entry{}, big) // streamed, then dropped as a duplicate
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != 4 || st.Bodies != 2 {
		t.Fatalf("entries %d bodies %d, want 4 and 2", st.Entries, st.Bodies)
	}
	if st.DedupSaved() != int64(len(body)+len(big)) {
		t.Errorf("dedup saved %d, want %d", st.DedupSaved(), len(body)+len(big))
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, b.ID); !bytes.Equal(got, body) {
		t.Fatal("deleting one reference lost the shared body")
	}
	if err := s.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, d.ID); !bytes.Equal(got, big) {
		t.Fatal("streamed duplicate not readable")
	}
	for _, id := range []memex.ID{c.ID, d.ID} {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	st, _ = s.Stats(ctx)
	if st.Entries != 0 || st.Bodies != 0 || st.StoredBytes != 0 {
		t.Fatalf("after deleting everything: %+v", st)
	}
	// The body is stored anew after it was dropped.
	e := add(t, s, memex.Entry{}, body)
	if got := readAll(t, s, e.ID); !bytes.Equal(got, body) {
		t.Fatal("re-added body differs")
	}
}

func TestResolveAliases(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	a := add(t, s, memex.Entry{Project: "p1", Aliases: []string{"toolu_1", "shared"}}, []byte("a"))
	b := add(t, s, memex.Entry{Project: "p2", Aliases: []string{"shared"}}, []byte("b"))
	if id, err := s.Resolve(ctx, "toolu_1", ""); err != nil || id != a.ID {
		t.Fatalf("resolve toolu_1 = %v, %v", id, err)
	}
	if id, err := s.Resolve(ctx, strings.ToLower(b.ID.String()), ""); err != nil || id != b.ID {
		t.Fatalf("resolve lower-case id = %v, %v", id, err)
	}
	_, err := s.Resolve(ctx, "shared", "")
	if !errors.Is(err, memex.ErrAmbiguous) || !strings.Contains(err.Error(), a.ID.String()) || !strings.Contains(err.Error(), b.ID.String()) {
		t.Fatalf("ambiguous alias: %v", err)
	}
	if !strings.Contains(err.Error(), "narrow it with the project") {
		t.Errorf("ambiguous across projects, no hint of the project: %v", err)
	}
	if id, err := s.Resolve(ctx, "shared", "p2"); err != nil || id != b.ID {
		t.Fatalf("narrowed alias = %v, %v", id, err)
	}
	if _, err := s.Resolve(ctx, "nope", ""); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("unknown alias: %v", err)
	}
	if _, err := s.Resolve(ctx, memex.NewID(time.Now()).String(), ""); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Resolve(ctx, "shared", ""); err != nil || id != b.ID {
		t.Fatalf("alias after delete = %v, %v", id, err)
	}
	if _, err := s.Add(ctx, memex.Entry{Aliases: []string{a.ID.String()}}, nil); !errors.Is(err, memex.ErrInvalid) {
		t.Fatalf("ID-shaped alias accepted: %v", err)
	}
}

func TestSessionOrderAndTimeScan(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var want []memex.ID
	for i := 0; i < 5; i++ {
		e := add(t, s, memex.Entry{Session: "sess", Created: t0.Add(time.Duration(i) * time.Minute)}, []byte{byte(i)})
		want = append(want, e.ID)
	}
	add(t, s, memex.Entry{Session: "other", Created: t0}, nil)
	var got []memex.ID
	if err := s.Session(ctx, memex.SessionRef{Session: "sess"}, func(e memex.Entry) error { got = append(got, e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("session order %v, want %v", got, want)
	}
	got = nil
	if err := s.Scan(ctx, t0.Add(time.Minute), t0.Add(3*time.Minute), func(e memex.Entry) error { got = append(got, e.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want[1:3]) {
		t.Fatalf("scan %v, want %v", got, want[1:3])
	}
	if err := s.Session(ctx, memex.SessionRef{Session: "missing"}, func(memex.Entry) error { return nil }); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
	ss, err := s.Sessions(ctx)
	if err != nil || len(ss) != 2 || ss[1].Session != "sess" || ss[1].Entries != 5 {
		t.Fatalf("sessions %+v %v", ss, err)
	}
	if ss[1].First != want[0] || ss[1].Last != want[4] {
		t.Fatalf("session bounds %v..%v, want %v..%v", ss[1].First, ss[1].Last, want[0], want[4])
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := bigText(2*ChunkSize, 6)
	e := add(t, s, memex.Entry{Aliases: []string{"k"}}, body)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.Resolve(context.Background(), "k", "")
	if err != nil || id != e.ID {
		t.Fatalf("resolve after reopen: %v %v", id, err)
	}
	if got := readAll(t, s, id); !bytes.Equal(got, body) {
		t.Fatal("body differs after reopen")
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Set(schemaKey, []byte("99"), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(dir, nil)
	if !errors.Is(err, memex.ErrSchema) || !strings.Contains(err.Error(), "v99") {
		t.Fatalf("open of newer schema: %v", err)
	}
}

func TestInterruptedStreamIsDroppedAtOpen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := memex.NewID(time.Now())
	w := s.newBodyWriter(id)
	if err := w.readFrom(context.Background(), bytes.NewReader(randomBytes(FlushSize+ChunkSize, 7))); err != nil {
		t.Fatal(err)
	}
	if !w.flushed {
		t.Fatal("expected a flushed partial body")
	}
	w.close() // the process dies here: no metadata was committed
	s.Close()
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.StoredBytes != 0 || st.Entries != 0 {
		t.Fatalf("orphaned chunks survived reopen: %+v", st)
	}
}

func TestVerifyFindsCorruption(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	add(t, s, memex.Entry{}, []byte("fine\n"))
	inline := add(t, s, memex.Entry{}, bigText(1000, 8))
	chunked := add(t, s, memex.Entry{}, bigText(InlineSize+1000, 8))
	var probs []Problem
	n, err := s.Verify(ctx, func(p Problem) { probs = append(probs, p) })
	if err != nil || n != 3 || len(probs) != 0 {
		t.Fatalf("clean verify: n=%d probs=%v err=%v", n, probs, err)
	}
	// One byte of the inline body changes inside its metadata record.
	v, err := s.get(idKey(prefixMeta, inline.ID))
	if err != nil {
		t.Fatal(err)
	}
	v[len(v)-10] ^= 1
	if err := s.db.Set(idKey(prefixMeta, inline.ID), v, nil); err != nil {
		t.Fatal(err)
	}
	// A chunk is replaced by other bytes of the same length.
	r, _ := s.getRecord(chunked.ID)
	if err := s.db.Set(chunkKey(r.Body, 0), append([]byte{codecRaw}, bytes.Repeat([]byte("x"), int(chunked.Bytes))...), nil); err != nil {
		t.Fatal(err)
	}
	n, err = s.Verify(ctx, func(p Problem) { probs = append(probs, p) })
	if err != nil || n != 3 || len(probs) != 2 || probs[0].ID != inline.ID || probs[1].ID != chunked.ID {
		t.Fatalf("verify after corruption: n=%d probs=%v err=%v", n, probs, err)
	}
	for _, p := range probs {
		if !strings.Contains(p.Message, "content hash") {
			t.Errorf("problem %q does not name the hash", p.Message)
		}
	}
}

// TestSmallBodiesLiveInTheirRecord checks where bodies go on each side of
// InlineSize, that both read back, and that deleting every entry leaves no
// key behind.
func TestSmallBodiesLiveInTheirRecord(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	small := bigText(InlineSize, 12)
	large := bigText(InlineSize+1, 12)
	var ids []memex.ID
	for _, body := range [][]byte{small, small, large, large, nil} {
		e := add(t, s, memex.Entry{Session: "s", Aliases: []string{"x"}}, body)
		if got := readAll(t, s, e.ID); !bytes.Equal(got, body) {
			t.Fatalf("%d bytes read back as %d", len(body), len(got))
		}
		ids = append(ids, e.ID)
	}
	count := func(prefix byte) int {
		n := 0
		if err := s.scanPrefix(ctx, []byte{prefix}, func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Only the large body has chunks and a table; both bodies have a hash
	// key; the second small entry references the first, and both large
	// entries reference the large body.
	for p, want := range map[byte]int{prefixMeta: 5, prefixTable: 1, prefixHash: 2, prefixRef: 3, prefixChunk: 1} {
		if got := count(p); got != want {
			t.Errorf("%d keys of prefix %q, want %d", got, p, want)
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Each body is stored once (the empty one too).
	if st.Bodies != 3 || st.DedupSaved() != int64(len(small)+len(large)) || st.StoredBytes <= 0 || st.StoredBytes >= st.UniqueBytes {
		t.Fatalf("stats %+v (dedup saved %d)", st, st.DedupSaved())
	}
	rc, err := s.Lines(ctx, ids[0], 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if want := bytes.Join(splitLines(small)[1:3], nil); !bytes.Equal(got, want) {
		t.Fatalf("lines 2:3 of an inline body = %q, want %q", got, want)
	}
	// Deleting the entry whose record holds the small body keeps the body
	// for the entry that references it.
	if err := s.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, ids[1]); !bytes.Equal(got, small) {
		t.Fatalf("small body after its first entry was deleted: %d bytes", len(got))
	}
	if n, err := s.Verify(ctx, func(p Problem) { t.Errorf("verify: %v", p) }); err != nil || n != 4 {
		t.Fatalf("verify: %d entries, %v", n, err)
	}
	// A third copy finds the moved body.
	third := add(t, s, memex.Entry{Session: "s"}, small)
	if r, _ := s.getRecord(third.ID); r.hasInline || r.Body != ids[0] {
		t.Errorf("third copy: inline %v, body %s, want a reference to %s", r.hasInline, r.Body, ids[0])
	}
	for _, id := range append(ids[1:], third.ID) {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	noKeysLeft(t, s)
}

// TestDeleteInlineReferenceFirst deletes the entry referencing a small body
// before the one whose record holds it.
func TestDeleteInlineReferenceFirst(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	body := bigText(200, 10)
	a := add(t, s, memex.Entry{}, body)
	b := add(t, s, memex.Entry{}, body)
	if err := s.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, a.ID); !bytes.Equal(got, body) {
		t.Fatal("body lost when its reference was deleted")
	}
	// The hash key survives: a new copy still finds the body.
	c := add(t, s, memex.Entry{}, body)
	if r, _ := s.getRecord(c.ID); r.Body != a.ID {
		t.Errorf("new copy references %s, want %s", r.Body, a.ID)
	}
	for _, id := range []memex.ID{a.ID, c.ID} {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	noKeysLeft(t, s)
}

// TestDedupForgetsDeletedBodies: once the last entry holding a body is
// deleted, the same body added again is stored again, not referenced
// where it was (the store remembers the bodies it stored: knownBodies).
func TestDedupForgetsDeletedBodies(t *testing.T) {
	s := openMem(t)
	ctx := context.Background()
	small, large := bigText(200, 10), bigText(3*InlineSize, 11)
	if len(large) <= InlineSize {
		t.Fatalf("large body of %d bytes", len(large))
	}
	for round := 0; round < 2; round++ {
		for _, body := range [][]byte{small, large} {
			first := add(t, s, memex.Entry{}, body)
			second := add(t, s, memex.Entry{}, body)
			if r, _ := s.getRecord(second.ID); r.Body != first.ID {
				t.Fatalf("round %d: second copy references %s, want %s", round, r.Body, first.ID)
			}
			for _, id := range []memex.ID{first.ID, second.ID} {
				if err := s.Delete(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
			again := add(t, s, memex.Entry{}, body)
			if r, _ := s.getRecord(again.ID); r.Body != again.ID {
				t.Fatalf("round %d: a copy added after every other was deleted references %s", round, r.Body)
			}
			if got := readAll(t, s, again.ID); !bytes.Equal(got, body) {
				t.Fatalf("round %d: %d bytes read back of %d", round, len(got), len(body))
			}
			if err := s.Delete(ctx, again.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	noKeysLeft(t, s)
}

// noKeysLeft fails when any key but the schema version remains.
func noKeysLeft(t *testing.T, s *Store) {
	t.Helper()
	if err := s.scanRange(context.Background(), []byte{0x01}, nil, func(k, _ []byte) error {
		t.Errorf("key %q left after deleting every entry", k)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentAddsGetDistinctIDs(t *testing.T) {
	s, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 40
	ids := make([]memex.ID, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := []byte(fmt.Sprintf("entry %d\n", i%7)) // some identical bodies race on dedup
			e, err := s.Add(context.Background(), memex.Entry{Session: "c"}, bytes.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			ids[i] = e.ID
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[memex.ID]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
		if got := readAll(t, s, id); string(got) != fmt.Sprintf("entry %d\n", i%7) {
			t.Fatalf("entry %d reads %q", i, got)
		}
	}
}

func TestCancelledAddStoresNothing(t *testing.T) {
	s := openMem(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Add(ctx, memex.Entry{}, bytes.NewReader([]byte("x"))); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	st, _ := s.Stats(context.Background())
	if st.Entries != 0 {
		t.Fatalf("entries = %d", st.Entries)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), int64(1), int64(2))
	f.Add([]byte{0, 0xff, '\n'}, int64(2), int64(0))
	f.Add([]byte(""), int64(1), int64(1))
	s, err := Open("", &Options{InMemory: true, NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	f.Fuzz(func(t *testing.T, body []byte, from, to int64) {
		e := add(t, s, memex.Entry{}, body)
		if got := readAll(t, s, e.ID); !bytes.Equal(got, body) {
			t.Fatalf("round trip differs")
		}
		if from < 1 || from > e.Lines || (to > 0 && to < from) {
			return
		}
		rc, err := s.Lines(context.Background(), e.ID, from, to)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		lines := splitLines(body)
		hi := to
		if hi <= 0 || hi > int64(len(lines)) {
			hi = int64(len(lines))
		}
		if want := bytes.Join(lines[from-1:hi], nil); !bytes.Equal(got, want) {
			t.Fatalf("lines %d:%d = %q, want %q", from, to, got, want)
		}
	})
}

func TestFullDiskRefusesCleanly(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	kept := add(t, s, memex.Entry{}, []byte("before the disk filled\n"))
	var free uint64 = 100 << 20
	s.free = func() (uint64, error) { return free, nil }
	big := randomBytes(40<<20, 9)
	if _, err := s.Add(ctx, memex.Entry{}, bytes.NewReader(big)); !errors.Is(err, memex.ErrDiskFull) || !strings.Contains(err.Error(), "free") {
		t.Fatalf("add of 40 MiB with 100 MiB free (64 in reserve): %v", err)
	}
	// A streamed body of unknown size is stopped at its first flush.
	free = 70 << 20
	if _, err := s.Add(ctx, memex.Entry{}, io.MultiReader(bytes.NewReader(big))); !errors.Is(err, memex.ErrDiskFull) {
		t.Fatalf("streamed add: %v", err)
	}
	st, _ := s.Stats(ctx)
	if st.Entries != 1 || st.StoredBytes > 1<<10 {
		t.Fatalf("a refused add left data behind: %+v", st)
	}
	if got := readAll(t, s, kept.ID); string(got) != "before the disk filled\n" {
		t.Fatal("earlier entry damaged")
	}
	free = 1 << 40
	if _, err := s.Add(ctx, memex.Entry{}, bytes.NewReader([]byte("room again"))); err != nil {
		t.Fatalf("add after space came back: %v", err)
	}
}

func TestTokenCountsExactUpToTheLimit(t *testing.T) {
	s := openMem(t)
	small := bigText(ExactTokenBytes, 10)
	e := add(t, s, memex.Entry{}, small)
	if want := int64(summarize.Count(small)); e.Tokens != want || e.TokensEstimated {
		t.Fatalf("tokens %d (estimated %v), want exactly %d", e.Tokens, e.TokensEstimated, want)
	}
	large := bigText(4*ChunkSize, 11)
	e = add(t, s, memex.Entry{}, large)
	want := float64(summarize.Count(large))
	if !e.TokensEstimated || math.Abs(float64(e.Tokens)-want)/want > 0.05 {
		t.Fatalf("estimate %d (estimated %v) is more than 5%% off %v", e.Tokens, e.TokensEstimated, want)
	}
}

// TestTokenEstimateOnRealOutput checks the sampled estimate against the
// exact count on real tool output cut into large bodies.
func TestTokenEstimateOnRealOutput(t *testing.T) {
	if testutil.CorporaDir() == "" {
		t.Skip("corpora absent")
	}
	s := openMem(t)
	var worst float64
	for _, body := range concat(loadToolOutputs(t), 1<<20) {
		e := add(t, s, memex.Entry{}, body)
		want := float64(summarize.Count(body))
		if d := math.Abs(float64(e.Tokens)-want) / want; d > worst {
			worst = d
		}
	}
	t.Logf("worst estimate error on 1 MiB bodies of real tool output: %.2f%%", worst*100)
	if worst > 0.05 {
		t.Fatalf("estimate off by %.1f%%", worst*100)
	}
}

func TestFreeSpaceIsCachedOnlyWithRoomToSpare(t *testing.T) {
	calls := 0
	var free uint64
	probe := func() (uint64, error) { calls++; return free, nil }
	f := cachedFree(probe, 100)
	free = 1000
	f()
	f()
	if calls != 1 {
		t.Fatalf("roomy disk: %d probes for two checks, want 1", calls)
	}
	g := cachedFree(probe, 100)
	free, calls = 50, 0
	g()
	g()
	if calls != 2 {
		t.Fatalf("nearly full disk: %d probes for two checks, want 2", calls)
	}
}

// putV1 writes an entry as schema version 1 laid it out: a JSON record
// with the hash in hex (and, in its first form, the entry's ID too), the
// body in chunks with a chunk table, a content hash key and a reference,
// whatever the body's size.
func putV1(t *testing.T, s *Store, e memex.Entry, body []byte, withID bool) memex.Entry {
	t.Helper()
	sum := sha256.Sum256(body)
	e.Hash = "sha256:" + hex.EncodeToString(sum[:])
	e.Bytes = int64(len(body))
	e.Lines = int64(len(splitLines(body)))
	e.Summary = "v1 entry"
	if e.Kind == "" {
		e.Kind = memex.KindNote
	}
	b := s.db.NewBatch()
	defer b.Close()
	bodyID := e.ID
	if v, err := s.get(hashKey(sum[:])); err == nil {
		copy(bodyID[:], v)
	} else {
		var rows []byte
		var n uint64
		for rest := body; len(rest) > 0; n++ {
			c := rest[:min(len(rest), ChunkSize)]
			rest = rest[len(c):]
			rows = binary.AppendUvarint(rows, uint64(len(c)))
			rows = binary.AppendUvarint(rows, uint64(bytes.Count(c, []byte{'\n'})))
			if err := b.Set(chunkKey(e.ID, uint32(n)), encodeChunk(nil, c), nil); err != nil {
				t.Fatal(err)
			}
		}
		table := binary.AppendUvarint([]byte{codecRaw}, n)
		table = append(table, rows...)
		_ = b.Set(idKey(prefixTable, e.ID), table, nil)
		_ = b.Set(hashKey(sum[:]), e.ID[:], nil)
	}
	v1 := struct {
		memex.Entry
		ID   *memex.ID `json:"id,omitempty"`
		Body *memex.ID `json:"body,omitempty"`
	}{Entry: e}
	if withID {
		v1.ID = &e.ID
	}
	if bodyID != e.ID {
		v1.Body = &bodyID
	}
	js, err := json.Marshal(v1)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Set(idKey(prefixMeta, e.ID), append([]byte{codecJSON}, js...), nil)
	_ = b.Set(refKey(bodyID, e.ID), nil, nil)
	_ = b.Set(idKey(prefixPending, e.ID), nil, nil)
	if e.Session != "" {
		_ = b.Set(nameIDKey(prefixSession, e.Session, e.ID), nil, nil)
	}
	for _, a := range e.Aliases {
		_ = b.Set(nameIDKey(prefixAlias, a, e.ID), nil, nil)
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestVersion1StoreIsReadAndUpgraded(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Set(schemaKey, []byte("1"), nil); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	bodies := [][]byte{[]byte("small\n"), bigText(2*ChunkSize+5, 13), []byte("small\n"), nil}
	var v1 []memex.Entry
	for i, body := range bodies {
		e := memex.Entry{ID: memex.NewID(t0), Created: t0, Session: "old", Aliases: []string{fmt.Sprint("v1-", i)}}
		v1 = append(v1, putV1(t, s, e, body, i%2 == 0))
	}
	s.Close()

	check := func(s *Store) {
		t.Helper()
		for i, want := range v1 {
			got, err := s.Get(ctx, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Hash != want.Hash || got.Bytes != want.Bytes || got.Lines != want.Lines || got.Summary != want.Summary || got.Session != "old" {
				t.Fatalf("v1 entry %d reads as %+v, want %+v", i, got, want)
			}
			if body := readAll(t, s, want.ID); !bytes.Equal(body, bodies[i]) {
				t.Fatalf("v1 body %d differs", i)
			}
			if id, err := s.Resolve(ctx, fmt.Sprint("v1-", i), ""); err != nil || id != want.ID {
				t.Fatalf("v1 alias %d: %v %v", i, id, err)
			}
		}
		var probs []Problem
		if _, err := s.Verify(ctx, func(p Problem) { probs = append(probs, p) }); err != nil || len(probs) > 0 {
			t.Fatalf("verify of a v1 store: %v %v", probs, err)
		}
	}
	schema := func(s *Store) string {
		v, err := s.get(schemaKey)
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}

	// A read-only open reads version 1 as it is and writes nothing.
	s, err = Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(s)
	if v := schema(s); v != "1" {
		t.Fatalf("read-only open changed the schema version to %s", v)
	}
	s.Close()

	// A writable open marks the store version 3 and adds next to the old
	// entries; a large body already stored by version 1 is found by hash.
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := schema(s); v != strconv.Itoa(SchemaVersion) {
		t.Fatalf("schema after a writable open: %s", v)
	}
	check(s)
	dup := add(t, s, memex.Entry{Session: "old"}, bodies[1])
	if r, _ := s.getRecord(dup.ID); r.Body != v1[1].ID {
		t.Fatalf("large body stored again instead of referencing the v1 copy")
	}
	n := 0
	if err := s.Session(ctx, memex.SessionRef{Session: "old"}, func(memex.Entry) error { n++; return nil }); err != nil || n != 5 {
		t.Fatalf("session of v1 and v2 entries: %d entries, %v", n, err)
	}
	for _, e := range append(v1, dup) {
		if err := s.Delete(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.scanRange(ctx, []byte{0x01}, nil, func(k, _ []byte) error {
		t.Errorf("key %q left after deleting every entry", k)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// FuzzRecordDecode checks the metadata decoder (goccy/go-json, for speed)
// against encoding/json on records made from arbitrary field values.
func FuzzRecordDecode(f *testing.F) {
	f.Add("proj", "sess", "go test ./...", "bash: go test · exit 1", "alias", int64(12), 1)
	f.Add("\xff\xfe", "\u2028\"\\", "<a>&amp;</a>", "\x00\x01", "", int64(-1), -1)
	f.Fuzz(func(t *testing.T, project, session, input, summary, alias string, n int64, exit int) {
		e := memex.Entry{ID: memex.NewID(time.Unix(1, 0)), Project: project, Session: session, Input: input,
			Summary: summary, AgentSummary: alias, Bytes: n, Tokens: n, Lines: n, Created: time.Unix(n%1e9, 0).UTC(),
			Aliases: []string{alias, project}, Exit: memex.IntPtr(exit), Kind: memex.KindTool, Tool: input}
		sum := make([]byte, sha256.Size)
		v, err := encodeRecord(record{Entry: e, Body: e.ID}, sum)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeRecord(e.ID, v)
		if err != nil {
			t.Fatal(err)
		}
		var want storedRecord
		if err := json.Unmarshal(v[1+sha256.Size:], &want); err != nil {
			t.Fatal(err)
		}
		want.Entry.ID, want.Entry.Hash = e.ID, got.Hash
		if !reflect.DeepEqual(got.Entry, want.Entry) {
			t.Fatalf("decoded %+v, encoding/json says %+v", got.Entry, want.Entry)
		}
	})
}

// FuzzDecodeDamagedRecord: whatever bytes a metadata record holds, decoding
// it returns a record or an error, never a panic.
func FuzzDecodeDamagedRecord(f *testing.F) {
	e := memex.Entry{ID: memex.NewID(time.Unix(1, 0)), Project: "p", Summary: "s", Created: time.Unix(1, 0).UTC()}
	v, err := encodeRecord(record{Entry: e, Body: e.ID}, make([]byte, sha256.Size))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v)
	f.Add(append([]byte{codecInline}, make([]byte, sha256.Size+1)...))
	f.Add([]byte{codecJSON, '{', '"', 'c'})
	f.Fuzz(func(t *testing.T, v []byte) {
		_, _ = decodeRecord(e.ID, v)
	})
}
