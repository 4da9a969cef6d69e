// Package hosts knows the agent hosts memex works inside (Claude Code,
// Codex, OpenCode): where their configuration lives, what memex install
// writes into it and how uninstall takes it out again, what their hook
// events carry on stdin, and how a hook's tool call becomes an entry.
//
// Nothing else in memex knows a host's file layout: cmd/memex asks this
// package for the changes to make and prints them; the transcript formats
// themselves are read by package ingest, whose rules for a tool call's
// input and exit status the hooks share, so that an entry reads the same
// whether a hook or a transcript import archived it first.
//
// Configuration edits merge into what is there: keys keep their order,
// nothing else is touched, a second install changes nothing, and uninstall
// removes exactly the handlers and server entries install adds.
package hosts
