//go:build !linux

package archive

import "os"

// preallocate writes size zero bytes to f.
func preallocate(f *os.File, size int64) error { return writeZeros(f, size) }
