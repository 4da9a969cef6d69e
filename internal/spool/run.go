package spool

import (
	"io"
	"os"

	"github.com/memex-archive/memex"
)

// Run is the spool of one memex run, from before the command starts
// to its archiving: its output file (spool/run-ID.out) beside its entry
// (spool/run-ID.json). While the Run is open, this process's drains
// leave both alone; once it is closed, they are the next writer's to
// archive, unless Done removed them.
type Run struct {
	f      *os.File
	closed bool
}

// StartRun creates, under dir, the spool of a run about to start, whose
// output is written to it; Save spools its entry beside it.
func StartRun(dir string) (*Run, error) {
	f, err := NewRunOutput(dir)
	if err != nil {
		return nil, err
	}
	return &Run{f: f}, nil
}

// Save writes (or rewrites) the run's entry, e, beside its output. The
// item names this process, so that other processes leave it alone while
// it lives.
func (r *Run) Save(e *memex.Entry) error {
	return WriteRun(r.f.Name(), Item{Entry: e, PID: os.Getpid()})
}

// Write appends to the spooled output.
func (r *Run) Write(p []byte) (int, error) { return r.f.Write(p) }

// Path is the spooled output's file, for messages.
func (r *Run) Path() string { return r.f.Name() }

// Finish rewrites the spooled entry as e (the run ended: e has its exit
// status) and returns the output from its start, to be archived.
func (r *Run) Finish(e *memex.Entry) (io.Reader, error) {
	if err := r.Save(e); err != nil {
		return nil, err
	}
	if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return r.f, nil
}

// Close closes the output and leaves output and entry in the spool, for
// the next process that writes to archive. It is safe more than once and
// after Done.
func (r *Run) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.f.Close()
	ReleaseRun(r.f.Name())
}

// Done closes the Run and removes output and entry: the run is
// archived, or there is nothing to archive.
func (r *Run) Done() {
	r.Close()
	out := r.f.Name()
	Spooled{Path: runItem(out), Output: out}.Done()
}
