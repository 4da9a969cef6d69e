//go:build !unix

package home

// alive cannot tell on this system: a note is taken at its word.
func alive(int) bool { return true }
