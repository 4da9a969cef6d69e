package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsonerr"
)

// How Run spreads an import over the CPUs: readers, one per CPU, each take
// the next file in order, read and parse it, and apply the write policy to
// its records and prepare their bodies (Options.Prepare) one by one; Run's
// own goroutine, the only writer, takes the files in the order they were
// found and each file's records in the order they are stored, looks up
// their keys and adds them. So the entries, their IDs and aliases, the
// progress records and the order of all the writes are those of one
// goroutine doing everything; only the work that reads nothing of the
// sink runs beside it.
//
// What the readers hold is bounded: a reader starts a file only while the
// files started and not yet written come to at most aheadBytes (a larger
// file starts alone), and hands over at most recsAhead prepared records
// before the writer takes them.
const (
	aheadBytes = 4 << 20
	recsAhead  = 64
)

// fileLocks serialises the runs of one process over the same file: Key
// dedupe is resolve-then-add, so two runs adding the same new records at
// once (two hooks firing together) would both add them. Processes do not
// share a store (the archive has one owner), so a process-wide lock is
// enough. The writer holds it; a file a reader parsed ahead with progress
// that has changed since (another run wrote the file in between) is read
// again under it.
var fileLocks sync.Map // path -> *sync.Mutex

// parsed is one file as a reader hands it to the writer.
type parsed struct {
	t     target
	ready chan struct{} // closed once the fields up to recs are set
	// state is the progress the reader found (nil: none, or Full).
	state []byte
	// rep is what reading and parsing counted, warnings what they warned,
	// for the writer to add to the run's when it takes the file.
	rep      Report
	warnings []string
	err      error // the file could not be read (errSink: the sink failed)
	skip     bool  // nothing to write: unchanged, or unusable
	src      *source
	head     []byte
	recs     chan prepared // the records in order, closed after the last; nil with err or skip
}

// prepared is a record as a reader hands it to the writer: its entry as it
// is to be stored (the Key alias first, the write policy applied, the spans
// it shows noted) and its body after the policy.
type prepared struct {
	rec   *Record
	e     memex.Entry
	body  []byte
	kinds map[string]int // the policy's replacements
	sink  io.Reader      // what the sink's Add reads body from
}

func newParsed(t target) *parsed { return &parsed{t: t, ready: make(chan struct{})} }

// drain drops what p's reader still prepares, until it is done.
func (p *parsed) drain() {
	if p.recs != nil {
		for range p.recs {
		}
	}
}

// readers is the readers of one Run.
type readers struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	files  []*parsed

	mu      sync.Mutex
	cond    sync.Cond
	started int   // the next file to start
	used    int64 // bytes of the files started and not yet written
	stopped bool
}

func startReaders(ctx context.Context, r *runner, targets []target) *readers {
	ctx, cancel := context.WithCancel(ctx)
	rs := &readers{cancel: cancel, files: make([]*parsed, len(targets))}
	rs.cond.L = &rs.mu
	for i, t := range targets {
		rs.files[i] = newParsed(t)
	}
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		rs.wg.Go(func() {
			for {
				p := rs.start()
				if p == nil {
					return
				}
				r.read(ctx, p)
			}
		})
	}
	return rs
}

// weight is what a file counts against aheadBytes.
func weight(p *parsed) int64 { return min(max(p.t.size, 1), aheadBytes) }

// start returns the next file to read, in order, once the bytes in flight
// allow it; nil when there is none or the readers are stopped.
func (rs *readers) start() *parsed {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for !rs.stopped && rs.started < len(rs.files) && rs.used > 0 && rs.used+weight(rs.files[rs.started]) > aheadBytes {
		rs.cond.Wait()
	}
	if rs.stopped || rs.started >= len(rs.files) {
		return nil
	}
	p := rs.files[rs.started]
	rs.started++
	rs.used += weight(p)
	return p
}

// next waits for file i to be parsed.
func (rs *readers) next(i int) *parsed {
	<-rs.files[i].ready
	return rs.files[i]
}

// done says file i is written, or abandoned: what a reader still prepares
// of it is dropped.
func (rs *readers) done(i int) {
	p := rs.files[i]
	p.drain()
	rs.mu.Lock()
	rs.used -= weight(p)
	// Its records and what the sink holds of them go with it.
	rs.files[i] = nil
	rs.cond.Broadcast()
	rs.mu.Unlock()
}

// stop ends the readers and waits for them.
func (rs *readers) stop() {
	rs.cancel()
	rs.mu.Lock()
	rs.stopped = true
	rs.cond.Broadcast()
	rs.mu.Unlock()
	rs.wg.Wait()
}

// state returns the progress kept for path: nil when there is none.
func (r *runner) state(ctx context.Context, path string) ([]byte, error) {
	b, err := r.sink.GetState(ctx, StateKey(path))
	if errors.Is(err, memex.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ingest: get state %s: %w: %w", path, err, errSink)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// read reads and parses p's file, then prepares its records for the
// writer; it runs on a reader's goroutine and touches nothing of the run
// but the sink's state and r.project.
func (r *runner) read(ctx context.Context, p *parsed) {
	ready := false
	defer func() {
		if !ready {
			close(p.ready)
		}
	}()
	t := p.t
	opts := *r.opts
	opts.Warn = func(msg string) { p.warnings = append(p.warnings, msg) }
	var prev FileState
	havePrev := false
	if !opts.Full {
		b, err := r.state(ctx, t.path)
		if err != nil {
			p.err = err
			return
		}
		p.state = b
		if b != nil && json.Unmarshal(b, &prev) == nil && prev.V == stateVersion && prev.Format == t.format {
			havePrev = true
		}
	}
	if havePrev && prev.Size == t.size && prev.ModTime == t.mtime.UnixNano() && t.format != OpenCode {
		p.rep.Unchanged++
		p.skip = true
		return
	}
	src := &source{path: t.path, format: t.format, mtime: t.mtime, opts: &opts, rep: &p.rep, proj: r.project, line: 1}
	p.src = src
	// head holds the file's first bytes, at least up to headLen or the
	// resume point, for the rewrite check of the next run.
	if t.format != OpenCode {
		resumed := false
		if havePrev && lineFormat(t.format, t.path) && t.size >= prev.Size && prev.Resume > 0 && prev.Resume <= t.size && int64(prev.HeadLen) <= prev.Resume {
			// A grown transcript: read only its head (to see it is the
			// same file) and what follows the resume point.
			h, tail, err := readResume(t.path, prev.Resume)
			if err != nil {
				p.err = err
				return
			}
			if headHash(h[:prev.HeadLen]) == prev.Head {
				resumed = true
				p.head = bytes.Clone(h[:min(len(h), headLen)])
				src.base, src.line, src.st, src.data = prev.Resume, prev.Line, prev, tail
			}
		}
		if !resumed {
			data, err := readFile(t.path)
			if err != nil {
				p.err = err
				return
			}
			// Only the head is kept: the file waits for the writer.
			p.head, src.data = bytes.Clone(data[:min(len(data), headLen)]), data
		}
		p.rep.Bytes += int64(len(src.data))
	} else {
		p.rep.Bytes += t.size
	}
	p.rep.Files++
	if n, line := InvalidUTF8(src.data); n > 0 {
		p.rep.InvalidUTF8 += n
		src.warnf(src.line+line-1, "%s not valid UTF-8 (from here on): the JSON decoder reads each as U+FFFD, so the archived text differs from the file's bytes there",
			plural(n, "byte sequence"))
	}
	if err := parserFor(t.format)(ctx, src); err != nil {
		p.err = err
		return
	}
	src.data = nil
	if skipped, unknown := p.rep.SkippedTotal(), total(p.rep.Unknown); src.base == 0 && len(src.records) == 0 && skipped+unknown > 0 {
		// Not one record in the whole file: most likely another format.
		// (A resumed file has shown its format before; what it gained
		// is only malformed.) No progress is kept, so that the next run
		// says so again instead of finding the file unchanged.
		msg := unusable(t, skipped, unknown, r.opts.Format == Auto, src.notFormat)
		p.rep.Unusable = append(p.rep.Unusable, msg)
		opts.warn(msg)
		p.skip = true
		return
	}
	recs := src.records
	src.records = nil
	byCreated(recs)
	p.recs = make(chan prepared, recsAhead)
	ready = true
	close(p.ready)
	r.feed(ctx, recs, p.recs)
}

// byCreated sorts recs stably by creation time: a tool call is emitted
// when its result arrives, after records that came later; IDs follow
// Created.
func byCreated(recs []Record) {
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Entry.Created.Before(recs[j].Entry.Created) })
}

// feed prepares recs in order onto ch, and closes it after the last or
// once ctx is done.
func (r *runner) feed(ctx context.Context, recs []Record, ch chan<- prepared) {
	defer close(ch)
	for i := range recs {
		select {
		case ch <- r.prepare(&recs[i]):
		case <-ctx.Done():
			return
		}
	}
}

// prepare is rec as it is to be stored, unless its Key finds it archived
// already. Every record the writer adds gets its Key as first alias, a
// completed call included, so it is put there before the policy, which
// sees the entry as it is stored but for a completed call's ID and time.
func (r *runner) prepare(rec *Record) prepared {
	e := rec.Entry
	if !e.Created.IsZero() && (e.Created.Before(minCreated) || e.Created.After(maxCreated)) {
		// Outside what an ID can encode: let the sink stamp it.
		e.Created = time.Time{}
	}
	aliases := e.Aliases
	if rec.Key != "" {
		// A Key is scoped by the project: the same trajectories
		// imported under two projects (two models run on the same
		// tasks) are two sets of entries.
		aliases = append([]string{rec.Key}, aliases...)
	} else {
		aliases = append([]string(nil), aliases...)
	}
	e.Aliases = dedupAliases(aliases)
	pr := prepared{rec: rec, body: rec.Body}
	if r.opts.Policy != nil {
		e, pr.body, pr.kinds = r.opts.Policy(e, pr.body)
	}
	RecordShown(&e, "", pr.body)
	pr.e = e
	if r.opts.Prepare != nil {
		pr.sink = r.opts.Prepare(e, pr.body)
	} else {
		pr.sink = bytesReader(pr.body)
	}
	return pr
}

// write adds what p's reader prepared and keeps the file's progress, under
// the file's lock; it runs on Run's goroutine.
func (r *runner) write(ctx context.Context, p *parsed) error {
	mu, _ := fileLocks.LoadOrStore(p.t.path, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if !r.opts.Full && p.err == nil {
		now, err := r.state(ctx, p.t.path)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, p.state) || (now == nil) != (p.state == nil) {
			// Another run of this process wrote the file since it was
			// read: read it again from the progress it left.
			p.drain()
			again := newParsed(p.t)
			go r.read(ctx, again)
			<-again.ready
			defer again.drain()
			p = again
		}
	}
	r.rep.merge(&p.rep)
	for _, w := range p.warnings {
		r.opts.warn(w)
	}
	if p.err != nil {
		return p.err
	}
	if p.skip {
		return nil
	}
	if err := r.store(ctx, p.t.path, p.recs); err != nil {
		return err
	}
	t, src := p.t, p.src
	st := FileState{V: stateVersion, Format: t.format, Size: t.size, ModTime: t.mtime.UnixNano()}
	st.HeadLen = min(len(p.head), headLen)
	if lineFormat(t.format, t.path) {
		st.HeadLen = int(min(int64(st.HeadLen), src.resume))
		st.Resume, st.Line, st.Tools = src.resume, src.resumeLine, src.resumeTool
		st.Session, st.Project, st.Cwd, st.SessionTools = src.st.Session, src.st.Project, src.st.Cwd, src.st.SessionTools
	}
	st.Head = headHash(p.head[:st.HeadLen])
	b, _ := json.Marshal(st)
	if err := r.sink.SetState(ctx, StateKey(t.path), b); err != nil {
		return fmt.Errorf("ingest: set state %s: %w: %w", t.path, err, errSink)
	}
	return nil
}

// store dedupes and adds a file's records, as its reader prepared them, in
// time order.
func (r *runner) store(ctx context.Context, path string, recs <-chan prepared) error {
	for {
		var pr prepared
		var ok bool
		select {
		case pr, ok = <-recs:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		if !ok {
			return nil
		}
		rec, e := pr.rec, pr.e
		completing := false
		if e.Session != "" {
			r.sessions[e.SessionRef()] = true
		}
		if rec.Key != "" {
			id, err := r.sink.Lookup(ctx, rec.Key, e.Project)
			if errors.Is(err, memex.ErrNotFound) && rec.HookKey != "" {
				id, err = r.sink.Lookup(ctx, rec.HookKey, e.Project)
			}
			switch {
			case err == nil:
				old, ok, err := r.completeHooked(ctx, id)
				if err != nil {
					return fmt.Errorf("ingest: complete %s: %w: %w", rec.Key, err, errSink)
				}
				if !ok {
					r.rep.Present++
					if r.otherContent(ctx, id, pr.body) {
						r.rep.Differ++
						if r.rep.Differ == 1 {
							r.opts.warn(fmt.Sprintf("%s: %s is already archived with other content (another run of the same session?): kept as it was; import another run under its own --project", path, rec.Key))
						}
					}
					continue
				}
				// The hook's entry, completed: the same ID, what the
				// transcript says of the call.
				e.ID, e.Created = old.ID, old.Created
				completing = true
			case !errors.Is(err, memex.ErrNotFound):
				return fmt.Errorf("ingest: look up %s: %w: %w", rec.Key, err, errSink)
			}
		}
		for k, v := range pr.kinds {
			r.rep.Redacted += v
			r.rep.count(&r.rep.RedactedKinds, k, v)
		}
		stored, err := r.sink.Add(ctx, e, pr.sink)
		if err != nil {
			if errors.Is(err, memex.ErrInvalid) {
				// One bad record (an alias of the wrong shape, ...) must not
				// stop the rest.
				r.rep.count(&r.rep.Skipped, "rejected by archive", 1)
				r.opts.warn(fmt.Sprintf("%s: rejected by archive: %s", path, jsonerr.Describe(err)))
				continue
			}
			return fmt.Errorf("ingest: add %s: %w: %w", rec.Key, err, errSink)
		}
		if completing {
			r.rep.Completed++
		} else {
			r.rep.Added++
		}
		r.rep.BodyBytes += int64(len(pr.body))
		if r.opts.Added != nil {
			r.opts.Added(stored, pr.body)
		}
	}
}

// merge adds o's counts and lines to r's.
func (r *Report) merge(o *Report) {
	r.Files += o.Files
	r.Unchanged += o.Unchanged
	r.Sessions += o.Sessions
	r.Added += o.Added
	r.Present += o.Present
	r.Differ += o.Differ
	r.Completed += o.Completed
	r.Redacted += o.Redacted
	r.InvalidUTF8 += o.InvalidUTF8
	r.Bytes += o.Bytes
	r.BodyBytes += o.BodyBytes
	r.Commits += o.Commits
	for _, m := range []struct {
		dst *map[string]int
		src map[string]int
	}{
		{&r.Skipped, o.Skipped}, {&r.Unknown, o.Unknown}, {&r.Ignored, o.Ignored}, {&r.RedactedKinds, o.RedactedKinds}} {
		for k, v := range m.src {
			r.count(m.dst, k, v)
		}
	}
	r.FileErrors = append(r.FileErrors, o.FileErrors...)
	r.Unusable = append(r.Unusable, o.Unusable...)
}

// storeSource sorts and stores src's records (the git and GitHub
// readers, which store as they read), preparing them on a goroutine
// beside the writes.
func (r *runner) storeSource(ctx context.Context, src *source) error {
	byCreated(src.records)
	ch := make(chan prepared, recsAhead)
	fctx, cancel := context.WithCancel(ctx)
	go r.feed(fctx, src.records, ch)
	err := r.store(ctx, src.path, ch)
	cancel()
	for range ch {
	}
	return err
}
