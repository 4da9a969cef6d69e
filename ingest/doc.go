// Package ingest reads the transcripts agents already write to disk
// (Claude Code, Codex, OpenCode, mini-swe-agent, SWE-agent, and memex's
// generic JSONL) and turns each tool call with its output, reasoning block,
// message and compaction point into an entry for the archive.
//
// # Records and identity
//
// A parser yields Records: the entry's metadata, its exact body, and a Key,
// the record's stable identity derived from the host's own ids, never from
// file position:
//
//	cc:<tool_use id>            Claude Code tool call (tool_use + tool_result)
//	cc:<line uuid>[.<block>]    Claude Code message, thinking, compaction line
//	codex:<thread>:<call_id>    Codex function or custom tool call
//	codex:<thread>:<sha>        Codex message, reasoning, compaction (hash of the line)
//	oc:<part id>                OpenCode part
//	mswe:<session>:<index>      mini-swe-agent message index
//	swe:<session>:<step>        SWE-agent trajectory step (history index for the task)
//	jsonl:<session>:<sha>       generic JSONL line
//
// The Key is stored as an alias of the entry; before adding a record, Run
// resolves its Key in the sink and skips it when present. Re-ingesting a
// file, a rewritten file, a fork that copied a transcript, or a Codex
// rollout compressed to .jsonl.zst therefore adds nothing twice. Each entry
// also carries the host's record id (tool_use id, call_id, part id) and,
// for tool calls, SESSION#N (N the 0-based position among the session's
// tool calls) as aliases.
//
// # Incremental progress
//
// For every file Run keeps a FileState under the sink's state key
// "ingest/file/<absolute path>": size, modification time, a hash of the
// first bytes, and for line formats the byte offset of a resume point with
// the counters valid there. An unchanged file is skipped without reading.
// A grown file whose head is unchanged is read from the resume point. A
// file that shrank or whose head changed is read whole; Key dedupe keeps
// that from duplicating. The resume point of a Claude Code file stops
// before the first tool call still waiting for its result, so a call and
// its output always become one entry; a last line without its newline
// (the host is still writing it) is left for the next run.
//
// # Secrets
//
// Unless Options.NoRedact is set, every body, tool input and agent summary
// passes through internal/redact before it reaches the sink; the Report
// counts the replacements per kind.
package ingest
