package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// WriteJSON prints v as indented JSON followed by a newline. --json output
// is a stable contract: field names change only with a major version.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Output prints v to w: as JSON with asJSON, else as text prints it.
func Output[T any](w io.Writer, asJSON bool, v T, text func(io.Writer, T) error) error {
	if asJSON {
		return WriteJSON(w, v)
	}
	return text(w, v)
}

// Print prints v as JSON with asJSON, else text, as PrintText does: the
// output of a command answered with a value and its rendering.
func Print(w io.Writer, asJSON bool, v any, text string) error {
	if asJSON {
		return WriteJSON(w, v)
	}
	return PrintText(w, text)
}

// PrintText prints s, with a newline at the end when it has none.
func PrintText(w io.Writer, s string) error {
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	_, err := fmt.Fprint(w, s)
	return err
}

// Progress returns a callback that draws a progress bar on stderr when
// stderr is a terminal and quiet is false; otherwise it returns nil, so
// that logs and pipes carry no bar.
func Progress(stderr io.Writer, desc string, quiet bool) func(done, total int64) {
	f, ok := stderr.(*os.File)
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

// Counter is Progress for a count of items (entries, probes): the same
// bar, told in ints, and nil where Progress is.
func Counter(stderr io.Writer, desc string, quiet bool) func(done, total int) {
	bar := Progress(stderr, desc, quiet)
	if bar == nil {
		return nil
	}
	return func(done, total int) { bar(int64(done), int64(total)) }
}

// Pager returns where long output should go: $PAGER (default less -FRX)
// when stdout is a terminal, else stdout itself. done waits for the pager.
func Pager(stdout, stderr io.Writer) (w io.Writer, done func()) {
	f, ok := stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return stdout, func() {}
	}
	p := os.Getenv("PAGER")
	if p == "" {
		p = "less -FRX"
	}
	cmd := exec.Command("sh", "-c", p)
	cmd.Stdout, cmd.Stderr = f, stderr
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return stdout, func() {}
	}
	return in, func() {
		in.Close()
		cmd.Wait()
	}
}

// Confirm asks question on stderr when stdin is a terminal, and is nil
// when the answer is y or yes, an ExitStatus 1 otherwise. Elsewhere it is
// the usage error unasked, which says how to confirm on the command line.
func Confirm(stdin io.Reader, stderr io.Writer, question, unasked string) error {
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return Usagef("%s", unasked)
	}
	fmt.Fprintf(stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(f).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return Exit(ExitFailure)
	}
	return nil
}

// Input opens the FILE argument, or stdin for "-" or no argument. The
// caller closes it.
func Input(args []string, stdin io.Reader) (io.ReadCloser, error) {
	if len(args) == 1 && args[0] != "-" {
		f, err := os.Open(args[0])
		if errors.Is(err, fs.ErrNotExist) {
			// The user named a file that is not there: not found (code
			// not_found in --json), not an internal failure.
			return nil, missingFile{err}
		}
		return f, err
	}
	return io.NopCloser(stdin), nil
}

// missingFile is a file named on the command line that does not exist. It
// reads as the open error and counts as memex.ErrNotFound.
type missingFile struct{ error }

func (e missingFile) Unwrap() error { return e.error }

func (e missingFile) Is(target error) bool { return target == memex.ErrNotFound }
