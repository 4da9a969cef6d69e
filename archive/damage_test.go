package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestDamagedFileIsAnErrorNotACrash: bytes flipped inside a store file
// make the reads that meet them fail with memex.ErrCorrupt in one line,
// and Verify report them, where Pebble's default would crash the process.
func TestDamagedFileIsAnErrorNotACrash(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var ids []memex.ID
	for i := range 40 {
		ids = append(ids, add(t, s, memex.Entry{Session: "d"}, randomBytes(64<<10, int64(i))).ID)
		ids = append(ids, add(t, s, memex.Entry{Session: "d"}, bigText(200, int64(i))).ID)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	var big string
	var size int64
	for _, p := range ssts {
		if fi, err := os.Stat(p); err == nil && fi.Size() > size {
			big, size = p, fi.Size()
		}
	}
	if size < 1<<20 {
		t.Fatalf("no store file to damage: %v", ssts)
	}
	b, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	for i := size / 2; i < size/2+64; i++ {
		b[i] ^= 0xff
	}
	if err := os.WriteFile(big, b, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var probs []Problem
	if _, err := s.Verify(ctx, func(p Problem) { probs = append(probs, p) }); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if len(probs) == 0 {
		t.Fatal("verify found nothing wrong with a damaged file")
	}
	for _, p := range probs {
		if !strings.Contains(p.Message, "damaged store file") || strings.Contains(p.Message, "\n") {
			t.Errorf("problem %q: want one line naming the damaged file", p.Message)
		}
	}
	bad := 0
	for _, id := range ids {
		if _, err := s.ReadAll(ctx, id); err != nil {
			if !errors.Is(err, memex.ErrCorrupt) {
				t.Errorf("read %s: %v, want ErrCorrupt", id, err)
			}
			bad++
		}
	}
	if bad == 0 {
		t.Error("every entry reads back from a damaged file")
	}
}
