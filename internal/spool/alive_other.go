//go:build !unix

package spool

// alive cannot tell on this system: a note is taken at its word.
func alive(int) bool { return true }
