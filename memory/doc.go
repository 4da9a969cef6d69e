// Package memory distils what the archive holds about a project into what
// the next agent needs: the handoff capsule (Handoff) and the staleness of
// remembered file content (Stale). Everything here is deterministic and
// offline, and every item names the archived entry it comes from, so that
// an agent can always read the exact evidence behind it (memex show ID,
// the memex_read tool).
//
// It reads the archive through Store, the interface deref declares, and
// checks file evidence with deref.Checkout. Other distillations (failure
// lessons, procedures) sit beside these as files of their own, each with
// its options and result types; they share the project scan of scan.go.
//
// # The handoff capsule
//
// Handoff sums up a project for an agent starting on it, whichever host
// it runs in, in five sections, each line starting with the ID of its
// evidence:
//
//   - sessions: the latest sessions by any agent, newest first: which
//     agent, when, how many entries, and its task (the session's first
//     prompt);
//   - notes and decisions: entries of kind note (what memex add --kind note
//     and the memex_compress tool archive), newest first;
//   - open failures: the last failing run of each command (a non-zero exit,
//     or a summary that reports a failure) that no later run of the same
//     command in the project passed;
//   - files most edited: by count of edits (Claude Code's Edit, Write and
//     MultiEdit, str_replace_editor, Codex's apply_patch), with the last
//     edit's ID and, when a checkout is given, whether what it showed still
//     stands;
//   - recent commits: the latest entries of kind commit (memex ingest git).
//
// The capsule fits its budget (default 1,500 tokens), a hard bound on its
// text under memex's tokenizer: the header first, then lines are added in
// turn, one from each section in the order above, until the next would
// not fit. The project is read backwards in time windows (a week, a
// month, a year, everything) until enough sessions are found, so that a
// long history costs only its recent part.
//
// # Staleness
//
// An entry that showed file lines (see summarize.Shows; recorded in its
// "shows" attribute at write time, derived from its content for entries
// archived before) is a hypothesis about the code. Stale checks every such
// entry of a project against the checkout and lists those whose lines
// changed or whose file is gone, newest first.
package memory
