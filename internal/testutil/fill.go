package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FillUp writes dir/fill until the disk holding dir refuses more (a
// Tmpfs, say) and returns the file's path: deleting it gives the room
// back.
func FillUp(tb testing.TB, dir string) string {
	tb.Helper()
	return FillTo(tb, dir, 0)
}

// FillTo writes dir/fill until the disk holding dir has at most leave
// bytes free, or refuses more, and returns the file's path.
func FillTo(tb testing.TB, dir string, leave int64) string {
	tb.Helper()
	p := filepath.Join(dir, "fill")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for len(buf) > 0 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			tb.Fatal(err)
		}
		free := int64(st.Bavail) * st.Bsize
		if free <= leave {
			break
		}
		n := min(int64(len(buf)), free-leave)
		if _, err := f.Write(buf[:n]); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				tb.Fatal(err)
			}
			buf = buf[:len(buf)/2]
		}
	}
	return p
}
