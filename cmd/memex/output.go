package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/memex-archive/memex"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// writeJSON prints v as indented JSON followed by a newline. --json output
// is a stable contract: field names change only with a major version.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// progress returns a callback that draws a progress bar on stderr when
// stderr is a terminal and quiet is false; otherwise it returns nil, so
// that logs and pipes carry no bar.
func (a *app) progress(desc string, quiet bool) func(done, total int64) {
	f, ok := a.stderr.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int64) {
		if bar == nil {
			bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(f),
				progressbar.OptionSetDescription(desc), progressbar.OptionShowBytes(false),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(),
				progressbar.OptionThrottle(100*time.Millisecond))
		}
		if bar.GetMax64() != total {
			bar.ChangeMax64(total)
		}
		_ = bar.Set64(done)
	}
}

// noteReplaced says on stderr that n credentials were replaced in what was
// just archived.
func (a *app) noteReplaced(n int) {
	if n > 0 {
		fmt.Fprintf(a.stderr, "memex: %s: replaced with [REDACTED:kind] (--no-redact keeps them)\n", memex.RedactedNote(n))
	}
}
