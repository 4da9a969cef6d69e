package testutil

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size bytes on a new temporary directory and
// returns it; the test's cleanup unmounts it. Fault tests use it as a small
// disk that fills up. It skips tb where mounting is not permitted (not
// root, or no CAP_SYS_ADMIN in a container).
func Tmpfs(tb testing.TB, size int64) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		tb.Skipf("cannot mount a %d-byte tmpfs here (%v): the test needs root or CAP_SYS_ADMIN", size, err)
	}
	tb.Cleanup(func() { unmount(tb, dir) })
	return dir
}

// ReadOnlyView mounts dir read-only on a new temporary directory (a
// read-only bind mount) and returns that directory; the test's cleanup
// unmounts it. It skips tb where mounting is not permitted.
func ReadOnlyView(tb testing.TB, dir string) string {
	tb.Helper()
	view := tb.TempDir()
	if err := syscall.Mount(dir, view, "", syscall.MS_BIND, ""); err != nil {
		tb.Skipf("cannot bind-mount %s here (%v): the test needs root or CAP_SYS_ADMIN", dir, err)
	}
	tb.Cleanup(func() { unmount(tb, view) })
	if err := syscall.Mount(dir, view, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		tb.Skipf("cannot make the bind mount of %s read-only (%v)", dir, err)
	}
	// The mount is read-only if creating a file there fails.
	if f, err := os.CreateTemp(view, "probe"); err == nil {
		f.Close()
		tb.Skipf("the read-only bind mount of %s accepts writes", dir)
	}
	return view
}

func unmount(tb testing.TB, dir string) {
	if err := syscall.Unmount(dir, 0); err != nil {
		// A lazy unmount still detaches it once the last file is closed.
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			tb.Errorf("unmount %s: %v", dir, err)
		}
	}
}
