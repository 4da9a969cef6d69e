// Package deref returns archived evidence within a token budget: the exact
// bytes of entries, cut into windows when they do not fit (Deref, Show), and
// the IndexedSummary of a session or project, one line per entry with its ID
// (Context).
//
// It reads the archive through the small Store interface it declares, and
// counts tokens with memex's tokenizer (summarize.Count). Nothing here
// writes.
//
// # Output
//
// The text rendering of a deref is, per entry in request order, a header
// line
//
//	[memex 01JD... · 812 lines · 2,340 tokens] bash: go test ./... · exit 1 · ...
//
// followed by the entry's content: the whole body when it fits, else its
// windows in body order with a marker line for every omitted span:
//
//	[memex: lines 120-340 omitted (2,210 tokens); memex show 01JD... --lines 120:340]
//
// and, after the entries, a line per reference that names nothing (or
// several entries). Lines are 1-based and inclusive, as memex show --lines
// takes them. Bytes inside a window are byte-identical to the archive;
// a marker always sits on a line of its own.
//
// # The budget
//
// The budget bounds the whole text rendering (headers, contents, markers,
// missing lines), counted exactly: Result.Used is the token count of
// Result.Text. The JSON form carries the same content strings; its envelope
// is not counted.
//
// A budget is too small when it cannot hold, for every entry, its header and
// its best line (cut to 32 tokens if longer) with the markers around it, or
// the entry whole when that costs less (a short entry, whose markers would
// outweigh the lines they stand for), plus the missing lines. Deref then
// fails with memex.ErrBudgetTooSmall and the error names that minimum.
//
// # Windows of one entry
//
// An entry is shown whole when header and body fit. Otherwise lines are
// scored: every distinct query term on a line (ASCII case-insensitive)
// scores 10, the whole query as a phrase 5 more, and a line that looks like
// an error ("error", "fail", "panic", "exception", "fatal", "assert") 3.
// ("traceback" is left out: a Python traceback ends in the exception line,
// which matches, and 't' starts too many words to scan for cheaply.) Windows are then added greedily while the planned cost fits:
//
//  1. the best line (highest score, earliest on ties; the last line when
//     nothing scores) with 3 lines of context on each side, shrinking the
//     context to 2, 1, 0 lines if needed;
//  2. the last 3 lines (outcomes are printed last), then the first 3
//     (commands and headers are printed first), each shrinking to 1 line;
//  3. every other scored line, best first, with as much context as fits;
//  4. the head and the tail grow alternately by up to 16 lines at a time,
//     the step halving when it no longer fits.
//
// Adjacent windows merge. Windows hold whole lines; only when the best line
// alone does not fit is it cut: a piece of it (starting a little before the
// first query match on it) is shown, followed by a marker naming the bytes
// shown and the line to show in full. Lines over 64 KB are treated as not
// fitting without being counted.
//
// The planned cost sums the exact token counts of the header, of each shown
// line and of each marker. Token counts of lines add up to at least the count
// of their concatenation in practice (cl100k pre-tokens do not span a
// newline followed by a non-space); the final rendering is counted exactly
// and, should it still exceed the budget, the plan is redone with less.
//
// The token cost printed in a marker is exact for bodies up to 8 KB. For
// larger ones it is the entry's remaining tokens (the archive stores the
// total of every body) shared among the omitted spans by their bytes, and
// printed with a "~" ("(~2,210 tokens)"): counting a megabyte of omitted
// text would cost more than the whole deref.
//
// # Several entries, one budget
//
// Every entry first gets its minimum: its header and best line, or itself
// whole, as above.
// The rest of the budget is split max-min fairly: equal shares, except that
// an entry needing less than its share to be shown whole takes only what it
// needs and leaves the difference to the others. Each entry is then planned
// within its allocation; what the plans leave unused (windows are whole
// lines) is offered to the entries not shown whole, in request order. So
// each entry gets at least its header and its best window before any gets
// more, and short entries come back whole whenever a fair share allows it.
//
// # Context (the IndexedSummary)
//
// Context lists the entries of a session, a project or both (optionally
// only those before an ID) as a header with totals and one line per entry,
//
//	01JD...  bash: go test ./... · exit 1 · go test: 1 failed ...  (1,234 tok)
//
// in session order. When the lines do not all fit the budget, entries are
// kept by priority, highest first: agent notes; failure lessons (entries of
// kind lesson, which say what a failure came to); failures (a non-zero exit,
// or a summary that reports a failure or error); their fixes (edits after a
// failure, and the same command passing again); other edits, commits and
// messages (decisions); other tool calls; reasoning; reads, listings and
// searches; last, repeated reads, listings and searches (an input seen
// earlier in the list). Within a priority the most recent entries win. A
// footer says how many entries were left out and the command that lists
// them all.
package deref
