package archive

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// errReadOnlyWrite is what a read-only store's file system answers to a
// write: a read-only Open must not change a byte of the store.
var errReadOnlyWrite = errors.New("archive: store opened read-only: no file may be written")

// readOnlyFS is the file system of a read-only Store. It refuses every
// write, so that a read-only open provably changes nothing and works where
// nothing can be written (a read-only mount, a full disk). Shared, it takes
// no lock either (see Options.Shared): Pebble's lock is exclusive (fcntl
// F_WRLCK on a LOCK file opened for writing), so with it two readers could
// not open the store at once.
type readOnlyFS struct {
	vfs.FS
	shared bool
}

func (f readOnlyFS) Lock(name string) (io.Closer, error) {
	if f.shared {
		return noLock{}, nil
	}
	return f.FS.Lock(name)
}

func (readOnlyFS) Create(name string, _ vfs.DiskWriteCategory) (vfs.File, error) {
	return nil, refuse("create", name)
}
func (readOnlyFS) Link(_, newname string) error { return refuse("link", newname) }
func (readOnlyFS) OpenReadWrite(name string, _ vfs.DiskWriteCategory, _ ...vfs.OpenOption) (vfs.File, error) {
	return nil, refuse("open for writing", name)
}
func (readOnlyFS) Remove(name string) error                 { return refuse("remove", name) }
func (readOnlyFS) RemoveAll(name string) error              { return refuse("remove", name) }
func (readOnlyFS) Rename(_, newname string) error           { return refuse("rename to", newname) }
func (readOnlyFS) MkdirAll(dir string, _ os.FileMode) error { return refuse("create", dir) }
func (readOnlyFS) ReuseForWrite(_, newname string, _ vfs.DiskWriteCategory) (vfs.File, error) {
	return nil, refuse("reuse", newname)
}

func refuse(op, name string) error { return fmt.Errorf("%s %s: %w", op, name, errReadOnlyWrite) }

type noLock struct{}

func (noLock) Close() error { return nil }
