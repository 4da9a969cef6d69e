package archive

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/memex-archive/memex"
)

// filesHolding returns the files under dir whose bytes contain secret.
func filesHolding(t *testing.T, dir string, secret []byte) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, secret) {
			out = append(out, filepath.Base(p))
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	return out
}

// tablesHolding returns the tables of the store in dir holding secret in
// any version of any key, decompressed (Pebble's blocks and the archive's
// chunks both are), deleted and overwritten versions included.
func tablesHolding(t *testing.T, dir string, secret []byte) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	var out []string
	for _, p := range paths {
		f, err := vfs.Default.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since the listing, by a compaction
		}
		if err != nil {
			t.Fatal(err)
		}
		readable, err := sstable.NewSimpleReadable(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sstable.NewReader(context.Background(), readable, sstable.ReaderOptions{})
		if err != nil {
			// A table that a flush or compaction is still writing: what
			// it holds comes from tables read here.
			t.Logf("%s: %v", filepath.Base(p), err)
			readable.Close()
			continue
		}
		it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles)
		if err != nil {
			t.Fatal(err)
		}
		for kv := it.First(); kv != nil; kv = it.Next() {
			v, _, err := kv.V.Value(nil)
			if err != nil {
				t.Fatal(err)
			}
			if kv.K.UserKey[0] == prefixChunk {
				if raw, err := decodeChunk(nil, v); err == nil {
					v = raw
				}
			}
			if bytes.Contains(v, secret) || bytes.Contains(kv.K.UserKey, secret) {
				out = append(out, filepath.Base(p))
				break
			}
		}
		it.Close()
		r.Close()
	}
	return out
}

func secretText(t *testing.T) []byte {
	b := make([]byte, 12)
	rand.Read(b)
	return []byte("MEMEXSECRET" + strings.ToUpper(hex.EncodeToString(b)))
}

// filesHolding and tablesHolding list the store's files while Pebble may
// be compacting in the background: a file can vanish or be half written.

// TestPurgeLeavesNoByteOfDeletedEntries: after Delete, a deleted body was
// still in the store's files byte for byte (the log that recorded the add,
// the tables), and after reopening too. After Purge no file holds it, raw
// or decompressed, in any version of any key.
func TestPurgeLeavesNoByteOfDeletedEntries(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, &Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	secret := secretText(t)
	var keep []memex.Entry
	for i := range 200 {
		keep = append(keep, add(t, s, memex.Entry{Session: "s", Project: "p"}, bigText(200+i*31, int64(i))))
		if i == 100 {
			if err := s.db.Flush(); err != nil { // some of it in tables already
				t.Fatal(err)
			}
		}
	}
	small := add(t, s, memex.Entry{Session: "s", Project: "p", Input: "echo " + string(secret), Aliases: []string{"k"}},
		[]byte("export TOKEN="+string(secret)+"\n"))
	big := append(randomBytes(3*ChunkSize, 7), secret...)
	big = append(big, randomBytes(ChunkSize, 8)...)
	large := add(t, s, memex.Entry{Session: "s", Project: "p"}, big)
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, add(t, s, memex.Entry{Session: "s"}, []byte("after the secret\n")))
	// One only in the write-ahead log (and the memtable).
	logged := add(t, s, memex.Entry{Session: "s", Project: "p"}, []byte("password: "+string(secret)+"\n"))
	keep = append(keep, add(t, s, memex.Entry{Session: "s"}, []byte("after that\n")))
	if got := append(filesHolding(t, dir, secret), tablesHolding(t, dir, secret)...); len(got) == 0 {
		t.Fatal("the secret is in no file before the delete: the test shows nothing")
	}

	if logs := filesHolding(t, dir, secret); !strings.Contains(strings.Join(logs, " "), ".log") {
		t.Fatalf("the secret is in no log before the delete (%v): the test shows nothing of logs", logs)
	}
	for _, id := range []memex.ID{small.ID, large.ID, logged.ID} {
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := append(filesHolding(t, dir, secret), tablesHolding(t, dir, secret)...); len(got) == 0 {
		t.Log("delete alone left no trace this time")
	} else {
		t.Logf("after delete alone, the secret is in %v", got)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if got := filesHolding(t, dir, secret); len(got) > 0 {
			t.Errorf("%s: the secret is in %v byte for byte", when, got)
		}
		if got := tablesHolding(t, dir, secret); len(got) > 0 {
			t.Errorf("%s: the secret is in tables %v", when, got)
		}
	}
	check("after purge")
	for _, e := range keep {
		if _, err := s.ReadAll(ctx, e.ID); err != nil {
			t.Fatalf("an entry kept is unreadable after purge: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("after reopening")
	if n, err := s.Verify(ctx, func(p Problem) { t.Errorf("verify: %+v", p) }); err != nil || n != len(keep) {
		t.Errorf("verify: %d entries, %v", n, err)
	}
}
