//go:build unix

package archive

import "golang.org/x/sys/unix"

// diskFree returns the bytes available to this user on the filesystem
// holding dir.
func diskFree(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
