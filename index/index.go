package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	bdoc "github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memex-archive/memex"
)

// SchemaVersion names the fields, analysis and document layout. An index
// written under another version cannot be searched correctly; Open fails
// with memex.ErrSchema and the user runs `memex reindex`.
const SchemaVersion = "9"

// schemaKey is the bleve internal key holding SchemaVersion.
var schemaKey = []byte("memex.schema")

// The indexed fields of an entry (see doc.go). The text fields' names are
// also those of the query syntax (summary:W input:W content:W).
const (
	fSummary = "summary" // display summary plus derived summary, stemmed text
	fContent = "content" // bounded excerpt of the body (see Excerpt), stemmed text
	fInput   = "input"   // command or tool arguments, code text
	fKey     = "key"     // exact terms "name:value", for filters (see keyTerms)
	fDef     = "def"     // the identifiers the content defines (see definitions)
	fPair    = "pair"    // adjacent pieces "a b" of the text fields, for phrases (see pairsOf)
	fContext = "context" // the last words of the question a message answers, stemmed text (see Add)
)

// Names of the exact values in fKey, which are also the filter names of
// the query syntax (tool:T, path:P, exit:N, ...).
const (
	fTool    = "tool"
	fKind    = "kind"
	fAgent   = "agent"
	fProject = "project"
	fSession = "session"
	fPath    = "path" // every file path mentioned, and its suffixes
	fExit    = "exit" // exit status when known
)

// timeLevels are the lengths of the ID prefixes kept in fKey as "tN:"
// terms, for before/after (see idBound). The first ten characters of an
// ID are its millisecond in base 32, so a prefix of 4 characters names a
// span of about 12 days, 5 about 9 hours, 6 about 17 minutes, 7 about 33
// seconds and 8 about one second.
var timeLevels = [...]int{4, 5, 6, 7, 8}

// Options configure Open. The zero value (or nil) is an on-disk index with
// the defaults below.
type Options struct {
	// InMemory keeps the index in memory (tests); dir is ignored.
	InMemory bool

	// Content returns an entry's archived content, for snippets and for
	// checking quoted phrases (the index keeps no positions). The reader
	// is closed by the index. It returns an error wrapping memex.ErrNotFound
	// for an entry that is gone from the archive: such a hit is dropped and
	// removed from the index. Nil: hits carry no snippet and phrases match
	// as all their words in one field. A search calls Content and Entry from several
	// goroutines at once (one per CPU).
	Content func(ctx context.Context, id memex.ID) (io.ReadCloser, error)

	// Entry returns an entry's metadata, for the hits' summary, tokens,
	// session and the rest, from the archive (the index stores none of
	// it). An error wrapping memex.ErrNotFound drops the hit and removes it
	// from the index, as for Content. Nil: hits carry their ID, its time,
	// score and snippet only.
	Entry func(ctx context.Context, id memex.ID) (memex.Entry, error)

	// Timeout bounds one Search, snippets included; past it the result is
	// marked Partial. Zero means one second.
	Timeout time.Duration

	// ReadOnly opens an existing index without writing to it (memex
	// verify): Add, Delete, Reset and Compact fail, and a damaged index is
	// an error wrapping memex.ErrCorrupt instead of being dropped.
	ReadOnly bool

	// Logger receives the line that says a damaged index was dropped (at
	// warning level). Nil: it is dropped too; Recovered still says.
	Logger *slog.Logger
}

// Index is a bleve index of archived entries. Its methods are safe for
// concurrent use.
type Index struct {
	dir  string
	opts Options

	mu     sync.RWMutex // held for reading by every operation, for writing by Reset and Close
	bi     bleve.Index
	closed bool
	err    error // first Close error
	// recovered is the damage that Open found and dropped, if any.
	recovered error
}

// Open opens the index in dir, creating it if dir is absent or empty. An
// index of another schema version fails with an error wrapping
// memex.ErrSchema that says to run `memex reindex`.
//
// An index that cannot be opened at all (a damaged or truncated file: bleve
// fails, or panics, reading it) is derived data: Open deletes it, logs one
// line saying so, and returns a new empty index whose Recovered says what
// was wrong. Its entries come back from the archive: catch-up rebuilds an
// empty index whose archive holds entries marked indexed
// (internal/catchup). With Options.ReadOnly such an index is an error
// wrapping memex.ErrCorrupt instead.
func Open(dir string, opts *Options) (*Index, error) {
	ix := &Index{dir: dir}
	if opts != nil {
		ix.opts = *opts
	}
	if ix.opts.Timeout <= 0 {
		ix.opts.Timeout = time.Second
	}
	if ix.opts.Logger == nil {
		ix.opts.Logger = slog.New(slog.DiscardHandler)
	}
	bi, err := ix.open()
	if errors.Is(err, errDamaged) && !ix.opts.ReadOnly {
		ix.opts.Logger.Warn(fmt.Sprintf("%v; it is derived data: dropped, and rebuilt from the archive", err))
		ix.recovered = err
		if err = Drop(dir); err == nil {
			bi, err = ix.open()
		}
	}
	if err != nil {
		return nil, err
	}
	ix.bi = bi
	return ix, nil
}

// Recovered returns the damage that Open found in the index it was given
// and dropped (an error wrapping memex.ErrCorrupt), or nil.
func (ix *Index) Recovered() error { return ix.recovered }

// errDamaged marks an index that bleve could not open.
var errDamaged = fmt.Errorf("damaged index: %w", memex.ErrCorrupt)

func (ix *Index) open() (bleve.Index, error) {
	if ix.opts.InMemory {
		return create("")
	}
	if empty, err := isEmptyDir(ix.dir); err != nil {
		return nil, fmt.Errorf("index: open %s: %w", ix.dir, err)
	} else if empty {
		if ix.opts.ReadOnly {
			return nil, fmt.Errorf("index: open %s: no index there: %w", ix.dir, memex.ErrNotFound)
		}
		if err := os.MkdirAll(filepath.Dir(ix.dir), 0o700); err != nil {
			return nil, fmt.Errorf("index: open %s: %w", ix.dir, err)
		}
		_ = os.Remove(ix.dir) // bleve creates the directory itself
		return create(ix.dir)
	}
	bi, v, err := openBleve(ix.dir, ix.opts.ReadOnly)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("index: open %s: %w", ix.dir, err)
		}
		// Bleve's message may quote the whole mapping (an index of an
		// older memex, or a damaged one): one line of it.
		return nil, fmt.Errorf("index: open %s: %s: %w", ix.dir, truncate(firstLine(err.Error()), 160), errDamaged)
	}
	if string(v) != SchemaVersion {
		_ = bi.Close()
		return nil, fmt.Errorf("index: open %s: schema version %q, this memex needs %q: run `memex reindex`: %w",
			ix.dir, v, SchemaVersion, memex.ErrSchema)
	}
	return bi, nil
}

// openMu serialises opens, for catchLostSnapshots.
var openMu sync.Mutex

// catchLostSnapshots watches the standard logger while an index opens, and
// returns a function that stops watching (the first call) and returns what
// bleve logged, if anything, about a snapshot it could not load. Scorch says so only there
// ("unable to load snapshot, ..., continuing") and opens an older
// snapshot instead. Other lines go where they went before.
func catchLostSnapshots() func() string {
	openMu.Lock()
	w := &snapshotWatch{to: log.Writer()}
	log.SetOutput(w)
	var once sync.Once
	return func() string {
		once.Do(func() {
			log.SetOutput(w.to)
			openMu.Unlock()
		})
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.msg
	}
}

type snapshotWatch struct {
	to  io.Writer
	mu  sync.Mutex
	msg string
}

func (w *snapshotWatch) Write(p []byte) (int, error) {
	line := string(p)
	for _, s := range []string{"unable to load snapshot", "unable to parse segment epoch", "snapshot key, but bucket missing"} {
		if i := strings.Index(line, s); i >= 0 {
			w.mu.Lock()
			if w.msg == "" {
				w.msg = strings.TrimSuffix(strings.TrimSpace(line[i:]), ", continuing")
			}
			w.mu.Unlock()
			return len(p), nil
		}
	}
	return w.to.Write(p)
}

// probe opens the scorch store of the index in dir read-only, loading its
// segments, and closes it, panic or not.
func probe(dir string) (err error) {
	sc, err := scorch.NewScorch(scorch.Name, map[string]interface{}{
		"path": filepath.Join(dir, "store"), "read_only": true, "bolt_timeout": "5s"}, nil)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
		defer func() { _ = recover() }()
		if cerr := sc.Close(); err == nil {
			err = cerr
		}
	}()
	return sc.Open()
}

// openBleve opens the bleve index in dir and reads its schema version. A
// damaged segment can make bleve panic as it loads it (a length read from
// the file slices past its end): that is an error here, like any other
// failure to open.
func openBleve(dir string, readOnly bool) (bi bleve.Index, version []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			if bi != nil {
				_ = bi.Close()
			}
			bi, err = nil, fmt.Errorf("%v", p)
		}
	}()
	// Only one process opens the index at a time (the home's lock), so
	// waiting for bolt's lock means that this process left it taken: a
	// panic opening a damaged index leaves its root.bolt open.
	config := map[string]interface{}{"bolt_timeout": "5s"}
	if readOnly {
		// A read-only open must not leave the damaged index's files open
		// (and its root.bolt locked) in this process: the open that
		// drops and rebuilds it may come next. Try the segments first on
		// a handle that can be closed after a panic.
		if err := probe(dir); err != nil {
			return nil, nil, err
		}
		config["read_only"] = true
	}
	lost := catchLostSnapshots()
	defer lost() // after a panic too
	bi, err = bleve.OpenUsing(dir, withEvents(config))
	if msg := lost(); msg != "" && err == nil {
		// Bleve could not load the index's last snapshot and opened an
		// older one (or none): what was indexed since is gone, silently.
		_ = bi.Close()
		return nil, nil, errors.New(msg)
	}
	if err != nil {
		return nil, nil, err
	}
	if version, err = bi.GetInternal(schemaKey); err != nil {
		_ = bi.Close()
		return nil, nil, err
	}
	return bi, version, nil
}

// scorchEvents names the callback of scorch.RegistryEventCallbacks that
// the index's scorch is given, if any: none in memex; tests use one to
// keep scorch from removing old files itself.
var scorchEvents string

// withEvents returns scorch's configuration with the scorchEvents
// callback, leaving config unchanged.
func withEvents(config map[string]interface{}) map[string]interface{} {
	if scorchEvents == "" {
		return config
	}
	c := map[string]interface{}{"eventCallbackName": scorchEvents}
	for k, v := range config {
		c[k] = v
	}
	return c
}

func create(dir string) (bleve.Index, error) {
	bi, err := bleve.NewUsing(dir, newMapping(), scorch.Name, scorch.Name, withEvents(nil))
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", dir, err)
	}
	if err := bi.SetInternal(schemaKey, []byte(SchemaVersion)); err != nil {
		_ = bi.Close()
		return nil, fmt.Errorf("index: create %s: %w", dir, err)
	}
	return bi, nil
}

func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return len(names) == 0, err
}

// newMapping is what bleve records of the schema: BM25 scoring and no
// mapped fields. Documents are built by document, which analyses their
// fields itself (bleve's mapping would walk a map by reflection and run a
// token stream through a filter chain per field); nothing is stored but
// the ID bleve keeps, no field keeps term vectors or doc values, and
// there is no composite _all field.
func newMapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	im.DefaultAnalyzer = keyword.Name
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	return im
}

// Doc is one entry to index: its metadata and its content (or an excerpt
// of it, see Excerpt; Add indexes at most ContentLimit bytes of it).
type Doc struct {
	Entry   memex.Entry
	Content []byte
}

// document maps d to the fields of the schema. The fields are analysed
// later, when bleve calls their Analyze on its analysis workers; d's
// content must stay unchanged until then (Add returns after).
func document(d Doc, before []byte) (*bdoc.Document, error) {
	e := d.Entry
	if e.ID.IsZero() {
		return nil, fmt.Errorf("index: add: entry without ID: %w", memex.ErrInvalid)
	}
	content := d.Content
	if len(content) > ContentLimit {
		content = content[:ContentLimit]
	}
	summary := e.DisplaySummary()
	if e.AgentSummary != "" && e.Summary != "" && e.Summary != e.AgentSummary {
		summary += "\n" + e.Summary
	}
	if prose(e.Kind) && e.AgentSummary == "" && inContent(e.Summary, content) {
		// The derived summary of prose is its first sentence: indexed
		// again, with the summary's weight, it would count the opening
		// words of a message four times over.
		summary = ""
	}
	if e.Exit != nil && *e.Exit != 0 {
		// A run that failed is an error whatever its output says ("No
		// such file or directory", a bare exit status): "CMD error" and
		// "CMD failed" find it.
		summary += "\n" + failedWords
	}
	doc := bdoc.NewDocument(e.ID.String())
	text := func(name string, b []byte, analyze func() (bindex.TokenFrequencies, int)) {
		if len(b) > 0 {
			doc.AddField(&field{name: name, opts: bindex.IndexField, size: len(b), analyze: analyze})
		}
	}
	stemText := func(b []byte) func() (bindex.TokenFrequencies, int) {
		return func() (bindex.TokenFrequencies, int) { return termFreqs(b, true, nil) }
	}
	// The pairs of the command and the content come of the scans that
	// count their terms, whichever of their fields bleve analyses first.
	input := []byte(e.Input)
	var scanned sync.Once
	var inputTerms, contentTerms struct {
		freqs bindex.TokenFrequencies
		n     int
	}
	var pairs *pairSet
	analyse := func() {
		scanned.Do(func() {
			pairs = newPairSet(len(content)/32 + 8)
			inputTerms.freqs, inputTerms.n = termFreqs(input, false, pairs.pairer().piece)
			contentTerms.freqs, contentTerms.n = termFreqs(content, true, pairs.pairer().piece)
		})
	}
	text(fSummary, []byte(summary), stemText([]byte(summary)))
	text(fInput, input, func() (bindex.TokenFrequencies, int) { analyse(); return inputTerms.freqs, inputTerms.n })
	text(fContent, content, func() (bindex.TokenFrequencies, int) { analyse(); return contentTerms.freqs, contentTerms.n })
	text(fContext, before, stemText(before))
	doc.AddField(&field{name: fDef, opts: bindex.IndexField, size: 64,
		analyze: func() (bindex.TokenFrequencies, int) {
			defs := definitions(content)
			freqs := make(bindex.TokenFrequencies, len(defs))
			slab := make([]bindex.TokenFreq, len(defs))
			for i, t := range defs {
				slab[i].Term = []byte(t)
				slab[i].SetFrequency(1)
				freqs[t] = &slab[i]
			}
			return freqs, len(defs)
		}})
	doc.AddField(&field{name: fPair, opts: bindex.IndexField | bindex.SkipFreqNorm, size: 64,
		analyze: func() (bindex.TokenFrequencies, int) {
			// The texts a phrase is checked against (see checker.one):
			// the command and the content, then the summaries.
			analyse()
			for _, s := range []string{e.Summary, e.AgentSummary} {
				pairsOf([]byte(s), pairs.add)
			}
			return pairs.freqs, len(pairs.freqs)
		}})
	doc.AddField(&field{name: fKey, opts: bindex.IndexField | bindex.SkipFreqNorm, size: 64,
		analyze: func() (bindex.TokenFrequencies, int) {
			terms := keyTerms(e, content)
			freqs := make(bindex.TokenFrequencies, len(terms))
			slab := make([]bindex.TokenFreq, len(terms))
			for i, t := range terms {
				slab[i].Term = []byte(t)
				freqs[t] = &slab[i]
			}
			return freqs, len(terms)
		}})
	return doc, nil
}

// contextWords is how many of the last words of the question before it a
// message holds in its context field.
const contextWords = 30

// lastWords is the end of text holding its last n words (runs of
// non-space).
func lastWords(text []byte, n int) []byte {
	end := len(text)
	for end > 0 && isSpaceASCII(text[end-1]) {
		end--
	}
	k := end
	for words := 0; k > 0; {
		for k > 0 && !isSpaceASCII(text[k-1]) {
			k--
		}
		if words++; words == n {
			break
		}
		for k > 0 && isSpaceASCII(text[k-1]) {
			k--
		}
	}
	for k < end && isSpaceASCII(text[k]) {
		k++
	}
	return text[k:end]
}

func isSpaceASCII(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// prose reports whether entries of kind k are text someone wrote, whose
// derived summary is their first sentence.
func prose(k memex.Kind) bool {
	return k == memex.KindMessage || k == memex.KindReasoning || k == memex.KindNote
}

// inContent reports whether a derived summary (perhaps clipped, ending in
// "…") is a piece of content.
func inContent(summary string, content []byte) bool {
	s := strings.TrimSpace(strings.TrimSuffix(summary, "…"))
	return s != "" && bytes.Contains(content, []byte(s))
}

// failedWords are indexed in the summary of every tool run that exited
// non-zero.
const failedWords = "error failed"

// keyTerms are the exact terms of an entry: "tool:Bash", "kind:tool",
// "agent:…", "project:…", "session:…", "exit:1", "path:…" for every path
// that Paths finds in its input and content, and "t4:…" to "t8:…", the
// prefixes of its ID (see timeLevels).
func keyTerms(e memex.Entry, content []byte) []string {
	var terms []string
	add := func(name, v string) {
		if v != "" {
			terms = append(terms, keyTerm(name, v))
		}
	}
	add(fTool, e.Tool)
	add(fKind, string(e.Kind))
	add(fAgent, e.Agent)
	add(fProject, e.Project)
	add(fSession, e.Session)
	if e.Exit != nil {
		add(fExit, strconv.Itoa(*e.Exit))
	}
	for _, p := range Paths(e.Input, content) {
		add(fPath, p)
	}

	id := e.ID.String()
	for _, n := range timeLevels {
		terms = append(terms, timeTerm(id, n))
	}
	return terms
}

// keyTerm is the term of fKey that says field name has value v.
func keyTerm(name, v string) string { return name + ":" + v }

// timeTerm is the term of fKey for the first n characters of an ID.
func timeTerm(id string, n int) string { return "t" + strconv.Itoa(n) + ":" + id[:n] }

// field is one field of a document, analysed by the index's own code.
type field struct {
	name    string
	opts    bindex.FieldIndexingOptions
	size    int // bytes to analyse
	analyze func() (bindex.TokenFrequencies, int)

	freqs  bindex.TokenFrequencies
	length int
}

var _ bdoc.Field = (*field)(nil)

func (f *field) Name() string                                      { return f.name }
func (f *field) ArrayPositions() []uint64                          { return nil }
func (f *field) Options() bindex.FieldIndexingOptions              { return f.opts }
func (f *field) Value() []byte                                     { return nil } // never stored
func (f *field) NumPlainTextBytes() uint64                         { return uint64(f.size) }
func (f *field) EncodedFieldType() byte                            { return 't' }
func (f *field) AnalyzedLength() int                               { return f.length }
func (f *field) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }

// Size is a rough count of the bytes the field holds once analysed
// (bleve's memory accounting).
func (f *field) Size() int { return 64 + f.size + 48*len(f.freqs) }

// Analyze counts the field's terms; bleve calls it once, before building
// the segment.
func (f *field) Analyze() {
	if f.freqs == nil {
		f.freqs, f.length = f.analyze()
	}
}

// batchBytes bounds the content of one bleve batch: bleve builds a batch
// into one in-memory segment before writing it.
const batchBytes = 32 << 20

// Add indexes docs, replacing any earlier version of the same IDs. It
// returns once the documents are searchable and durable on disk. Large
// slices are written in several batches; on error, earlier batches stay
// indexed. Cancelling ctx stops between batches.
//
// Docs come in the order they were written (catch-up gives them in ID
// order). A message that follows a message of its session ending in a
// question mark, among docs, holds that question's last words
// (contextWords) in its context field, weighed low (boostContext): in a
// conversation an answer shares few words with the question it answers
// ("What motivated you to pursue counseling?" and "My own journey and
// the support I got made a huge difference"), and the question's words
// then find the answer too. A message whose question came in another call
// has no context; a tool run, a note or reasoning never has, nor gives
// any.
func (ix *Index) Add(ctx context.Context, docs ...Doc) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := ix.writable("add"); err != nil {
		return err
	}
	b := ix.bi.NewBatch()
	size := 0
	last := map[string]int{} // session → index in docs of its latest entry so far
	for i, d := range docs {
		var before []byte
		if e := d.Entry; e.Session != "" {
			key := e.Project + "\x00" + e.Agent + "\x00" + e.Session
			if j, ok := last[key]; ok && e.Kind == memex.KindMessage && docs[j].Entry.Kind == memex.KindMessage {
				if c := bytes.TrimRight(docs[j].Content, " \t\r\n"); len(c) > 0 && c[len(c)-1] == '?' {
					before = lastWords(docs[j].Content, contextWords)
				}
			}
			last[key] = i
		}
		doc, err := document(d, before)
		if err != nil {
			return err
		}
		if err := b.IndexAdvanced(doc); err != nil {
			return fmt.Errorf("index: add %s: %w", d.Entry.ID, err)
		}
		size += len(d.Content) + len(d.Entry.Input) + 512
		if size >= batchBytes {
			if err := ix.flush(ctx, b); err != nil {
				return err
			}
			b.Reset()
			size = 0
		}
	}
	return ix.flush(ctx, b)
}

func (ix *Index) flush(ctx context.Context, b *bleve.Batch) error {
	if b.Size() == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("index: add: %w", err)
	}
	if err := ix.bi.Batch(b); err != nil {
		return fmt.Errorf("index: add: %w", err)
	}
	return nil
}

// Delete removes entries from the index. Unknown IDs are not an error.
func (ix *Index) Delete(ctx context.Context, ids ...memex.ID) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := ix.writable("delete"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("index: delete: %w", err)
	}
	b := ix.bi.NewBatch()
	for _, id := range ids {
		b.Delete(id.String())
	}
	if err := ix.flush(ctx, b); err != nil {
		return fmt.Errorf("index: delete: %w", err)
	}
	return nil
}

// writable fails when the index may not be changed: closed, or opened
// read-only. The caller holds ix.mu.
func (ix *Index) writable(op string) error {
	if ix.closed {
		return fmt.Errorf("index: %s: closed: %w", op, memex.ErrInvalid)
	}
	if ix.opts.ReadOnly {
		return fmt.Errorf("index: %s: opened read-only: %w", op, memex.ErrInvalid)
	}
	return nil
}

// Count returns the number of indexed entries.
func (ix *Index) Count() (uint64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return 0, fmt.Errorf("index: count: closed: %w", memex.ErrInvalid)
	}
	n, err := ix.bi.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index: count: %w", err)
	}
	return n, nil
}

// Segments returns the number of segments the index is in: one after
// Compact, more as entries are added until bleve merges them.
func (ix *Index) Segments() (int, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return 0, fmt.Errorf("index: segments: closed: %w", memex.ErrInvalid)
	}
	m, ok := ix.bi.StatsMap()["index"].(map[string]interface{})
	if !ok {
		return 0, fmt.Errorf("index: segments: no index statistics")
	}
	file, _ := m["num_root_filesegments"].(uint64)
	mem, _ := m["num_root_memorysegments"].(uint64)
	return int(file + mem), nil
}

// Has reports whether id is indexed.
func (ix *Index) Has(id memex.ID) (bool, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return false, fmt.Errorf("index: has: closed: %w", memex.ErrInvalid)
	}
	d, err := ix.bi.Document(id.String())
	if err != nil {
		return false, fmt.Errorf("index: has %s: %w", id, err)
	}
	return d != nil, nil
}

// Reset drops every entry and the schema with them, leaving an empty index
// of the current schema (the first step of a rebuild). bleve merges the
// segments of the load that follows as it merges any others: leaving every
// merge to one Compact at the end merged each entry once instead of at
// every tier, but that merge of all the segments at once took a rebuild of
// 500 MB of transcripts past 512 MB of RSS, for more time and CPU than
// tiered merging (docs/performance.md, The collector's room).
func (ix *Index) Reset() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.writable("reset"); err != nil {
		return err
	}
	if err := ix.bi.Close(); err != nil {
		return fmt.Errorf("index: reset: %w", err)
	}
	if !ix.opts.InMemory {
		if err := os.RemoveAll(ix.dir); err != nil {
			ix.closed = true
			return fmt.Errorf("index: reset: %w", err)
		}
	}
	bi, err := ix.open()
	if err != nil {
		ix.closed = true
		return fmt.Errorf("index: reset: %w", err)
	}
	ix.bi = bi
	return nil
}

// compactPlan merges every segment in one step.
var compactPlan = func() mergeplan.MergePlanOptions {
	o := mergeplan.SingleSegmentMergePlanOptions
	o.SegmentsPerMergeTask = 1 << 20
	return o
}()

// Compact merges the index into one segment and returns once that is
// durable. One segment is the smallest index (each term's dictionary entry
// once) and the fastest to search. Searches go on while it merges (on the
// segments as they were). Cancelling ctx stops the merge; the index stays
// as it was.
func (ix *Index) Compact(ctx context.Context) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := ix.writable("compact"); err != nil {
		return err
	}
	if ix.opts.InMemory {
		return nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return fmt.Errorf("index: compact: %w", err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("index: compact: not a scorch index (%T)", adv)
	}
	o := compactPlan
	if err := sc.ForceMerge(ctx, &o); err != nil {
		return fmt.Errorf("index: compact: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("index: compact: %w", err)
	}
	// A durable batch after the merge: it returns once a snapshot that
	// holds the merged segment is on disk.
	b := ix.bi.NewBatch()
	b.SetInternal(schemaKey, []byte(SchemaVersion))
	if err := ix.bi.Batch(b); err != nil {
		return fmt.Errorf("index: compact: %w", err)
	}
	return nil
}

// PurgeWait bounds how long Purge waits for bleve to delete the segment
// files that held deleted entries (a search in progress keeps them).
const PurgeWait = 30 * time.Second

// Purge makes the entries deleted from the index unreadable on disk.
// Delete only marks a document deleted in its segment, whose file keeps
// its terms; Purge merges the index into one segment without them (as
// Compact does) and waits until bleve has removed the files of the
// segments merged away. It fails when they are still there after
// PurgeWait.
func (ix *Index) Purge(ctx context.Context) error {
	if ix.opts.InMemory {
		return nil
	}
	// A merge rewrites the segments it merges without their deleted
	// documents, but an index of one segment is not merged at all: index
	// a document of nothing first, so that there are always two.
	if err := ix.placeholder(false); err != nil {
		return fmt.Errorf("index: purge: %w", err)
	}
	if err := ix.Compact(ctx); err != nil {
		return fmt.Errorf("index: purge: %w", err)
	}
	if err := ix.placeholder(true); err != nil {
		return fmt.Errorf("index: purge: %w", err)
	}
	deadline := time.Now().Add(PurgeWait)
	for {
		left, err := ix.staleSegments()
		if err != nil {
			return fmt.Errorf("index: purge: %w", err)
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("index: purge: %d segment files merged away are still on disk after %s (a search in progress holds them)", left, PurgeWait)
		}
		// bleve removes them in its persister's next idle moment and
		// says so to no one: look again shortly.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// placeholderID is the document that Purge indexes, and deletes after.
const placeholderID = "memex.purge"

// placeholder indexes (or deletes) a document with no field.
func (ix *Index) placeholder(remove bool) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := ix.writable("purge"); err != nil {
		return err
	}
	b := ix.bi.NewBatch()
	if remove {
		b.Delete(placeholderID)
	} else if err := b.IndexAdvanced(bdoc.NewDocument(placeholderID)); err != nil {
		return err
	}
	return ix.bi.Batch(b)
}

// staleSegments counts the segment files on disk beyond those of the
// index's current snapshot.
func (ix *Index) staleSegments() (int, error) {
	files, err := filepath.Glob(filepath.Join(ix.dir, "store", "*.zap"))
	if err != nil {
		return 0, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return 0, fmt.Errorf("closed: %w", memex.ErrInvalid)
	}
	m, ok := ix.bi.StatsMap()["index"].(map[string]interface{})
	if !ok {
		return 0, fmt.Errorf("no index statistics")
	}
	live, _ := m["num_root_filesegments"].(uint64)
	return max(len(files)-int(live), 0), nil
}

// Drop removes an index directory whatever its schema (for a rebuild when
// Open refuses the old one).
func Drop(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("index: drop %s: %w", dir, err)
	}
	return nil
}

// Close releases the index. It is safe to call twice and returns the first
// error. An index opened for writing is left holding only what its last
// snapshot needs: the files of segments merged away, which bleve removes
// only when idle, go with Close (see tidy).
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ix.err
	}
	ix.closed = true
	if err := ix.bi.Close(); err != nil {
		ix.err = fmt.Errorf("index: close: %w", err)
		return ix.err
	}
	ix.tidyClosed()
	return nil
}
