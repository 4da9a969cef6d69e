//go:build !unix

package spool

// Alive cannot tell on this system: a note is taken at its word.
func Alive(int) bool { return true }
