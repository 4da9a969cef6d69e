// Package eval measures memex's claim: an agent holding an IndexedSummary
// and dereferencing on demand keeps evidence that a truncated context window
// or a summary alone loses, at the same token budget.
//
// # Probes
//
// A Probe names a point of a session (At, the entry before which the agent
// stands) and an exact string (Answer) that appeared earlier and that the
// agent needs there, known to it by Query. Derive finds probes mechanically,
// with no model, in three shapes:
//
//   - rerun: a command run again later whose output changed; the answer is a
//     line of the earlier output, the query the command, At the re-run.
//   - failure: a command that failed, followed by more work; the answer is
//     its key error line, the query the command and "error", At a later step.
//   - edit: a file read, then edited, then read again; the answer is a line
//     of the first read that the later read no longer shows, the query the
//     path, At a step after the edit.
//
// Every answer occurs exactly once in the session's transcript (so that a
// hit cannot come from a later copy) and never inside its query. The seed
// fixes the later steps chosen and the sample kept under a maximum.
//
// # Budget runs
//
// Budget assembles, for every probe and budget, the context each Strategy
// would hand the agent from what existed before At, and counts a hit when
// the answer occurs in it byte for byte. Every assembled context is counted
// with summarize.CountString and a context over its budget fails the run:
// a strategy that cheats on the budget cannot win.
//
// # Retrieval benchmarks
//
// Retrieval loads LongMemEval or LoCoMo, archives every haystack into its
// own project of an in-memory store, and scores memex's index and a plain
// BM25 index of the raw turns with recall_any@k, recall_all@k and nDCG@k
// at session and turn level (memex's sessions as index.Sessions ranks
// them, BM25's by their best turn).
//
// Hit rates come with a 95% Wilson score interval, which stays inside [0, 1]
// and behaves at rates near 0 and 1, where the normal approximation does not.
package eval
