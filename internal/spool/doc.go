// Package spool is the spool of a memex home ($MEMEX_HOME/spool): the
// work a process could not hand to the store, its format, its writers and
// its drain, and the flight of hooks in progress (flight.go). Both
// binaries use it: memex, and memex-hook, which writes a tool call's item
// without linking the store (docs/performance.md, Hooks). It imports no
// more than the standard library, memex's root package and flock, so that
// a process that only spools starts fast.
//
// The spool holds work that a process could not hand to the store (it was
// taken, or the server was gone) for the next process that holds it:
//
//	spool/ID.json        an Item (hooks: an entry with its content, or
//	                     a transcript to import); ID is a ULID, so names
//	                     sort in time order
//	spool/run-ID.out     the output of a memex run, redacted as it was
//	                     written (unless --no-redact), with
//	spool/run-ID.json    its entry (an Item without content), rewritten
//	                     with the exit status when the command ends
//	spool/*.bad          an item that could not be read, kept for a person
//
// What is spooled went through the write policy already (or was asked to
// be kept as it is): the drainer stores it as it is.
//
// Every file is written 0600 in a 0700 directory, to a temporary name first
// and renamed, so that a drainer never reads half an item.
package spool
