package deref

import "github.com/memex-archive/memex"

// Failed reports whether an entry records a failure, as the IndexedSummary
// ranks it: a non-zero exit, or a tool output whose summary reports a
// failure or an error.
func Failed(e memex.Entry) bool { return isFailure(e) }

// Edited reports whether an entry is an edit of files (an edit or write
// tool, a patch, or a summary that says so).
func Edited(e memex.Entry) bool { return isEdit(e) }
