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
//	mswe:<session>:<index>[.thought|.action]   mini-swe-agent message (its index in messages)
//	swe:<session>:<step>[.thought]             SWE-agent trajectory step
//	swe:<session>:task:<index>                 SWE-agent task statement (history index)
//	mswe:<session>:exit, swe:<session>:exit    exit status and submission
//	jsonl:<session>:<sha>                      generic JSONL line (hash of the line)
//	git:<commit hash>                          a commit (memex ingest git; see git.go)
//	git:tag:<name>:<commit hash>               a tag naming a commit
//	github:<project>#<number>@<updated>        an issue or pull request as exported then (see github.go)
//
// The Key is stored as an alias of the entry; before adding a record, Run
// looks its Key up in the sink, in the record's project, and skips it when
// present. Re-ingesting a file, a rewritten file, a fork that copied a
// transcript, or a Codex rollout compressed to .jsonl.zst therefore adds
// nothing twice. The same files imported under another project (two
// models' trajectories of the same tasks, --project model-a and model-b)
// are new records there: keys, like aliases, are scoped by the project
// (archive.Store.Lookup). A record of no project (captured by a hook given
// no working directory) matches the same Key in any project. Each entry
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
// # Entries
//
// Kinds: a tool call and its output are one tool entry (Input = the shell
// command, else the arguments as one-line JSON; body = the output exactly
// as the agent saw it; Exit when the host states or implies it); thinking
// and reasoning summaries are reasoning entries; prompts and replies are
// message entries (Attrs role); compaction boundaries, compact summaries
// and a SWE run's exit are event entries (Attrs event = compact_boundary,
// compact_summary, compacted, compaction or exit). Claude Code assistant
// lines split per content block stay one entry per block, joined by
// Attrs message_id. Subagent transcripts are sessions of their own
// ("agent-<id>", Attrs parent_session, agent_type, description); the
// spawning tool entry carries Attrs subagent_session. Attrs cwd keeps the
// working directory; Project is derived from it (see DetectProject) unless
// Options.Project is set. Created is the record's timestamp, never earlier
// than the session's previous record.
//
// # Problems
//
// Nothing a transcript holds makes Run fail. A malformed line is skipped,
// counted in Report.Skipped and passed to Options.Warn as
// "file:line: reason". A path given in Options.Paths that does not exist,
// or a directory given there that holds no file of the format, is a
// Report.FileErrors line saying what the format looks for ("DIR: no codex
// rollout files (rollout-*.jsonl, rollout-*.jsonl.zst) found"); the
// default locations may be missing or empty without a word. A file read
// whole that yields not one record while lines of it were malformed or of
// unknown types is a Report.Unusable line (most likely a file of another
// format); its progress is not kept, so the next run reports it again.
// With Auto, which picks a file's format from its name and first bytes,
// that line says the format was not recognised, naming the format tried;
// for a one-document format (a trajectory) it also says why, and no other
// warning precedes it. Warnings word JSON problems in JSON's terms (the
// field, what it holds, what was expected), never with the parser's Go
// types.
//
// # Secrets
//
// The package does not redact on its own: every record passes through
// Options.Policy, the write policy its caller gives (internal/service
// gives memex's redaction, the one every write path shares), before it
// reaches the sink; the Report counts the replacements per kind.
package ingest
