package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
const SchemaVersion = "7"

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
}

// Index is a bleve index of archived entries. Its methods are safe for
// concurrent use.
type Index struct {
	dir  string
	opts Options

	mu     sync.RWMutex // held for reading by every operation, for writing by Reset, Close and Compact's reopening
	bi     bleve.Index
	bulk   bool // emptied by Reset and not yet compacted: no background merging
	closed bool
	err    error // first Close error
}

// Open opens the index in dir, creating it if dir is absent or empty. An
// index of another schema version fails with an error wrapping
// memex.ErrSchema that says to run `memex reindex`.
func Open(dir string, opts *Options) (*Index, error) {
	ix := &Index{dir: dir}
	if opts != nil {
		ix.opts = *opts
	}
	if ix.opts.Timeout <= 0 {
		ix.opts.Timeout = time.Second
	}
	bi, err := ix.open()
	if err != nil {
		return nil, err
	}
	ix.bi = bi
	return ix, nil
}

func (ix *Index) open() (bleve.Index, error) {
	if ix.opts.InMemory {
		return create("")
	}
	if empty, err := isEmptyDir(ix.dir); err != nil {
		return nil, fmt.Errorf("index: open %s: %w", ix.dir, err)
	} else if empty {
		if err := os.MkdirAll(filepath.Dir(ix.dir), 0o700); err != nil {
			return nil, fmt.Errorf("index: open %s: %w", ix.dir, err)
		}
		_ = os.Remove(ix.dir) // bleve creates the directory itself
		return create(ix.dir)
	}
	bi, err := bleve.OpenUsing(ix.dir, nil)
	if err != nil {
		// An index of an older memex may not even parse (bleve then quotes
		// its whole mapping): say so in one line.
		return nil, fmt.Errorf("index: open %s: %s: run `memex reindex` to rebuild it: %w", ix.dir, truncate(firstLine(err.Error()), 160), memex.ErrSchema)
	}
	v, err := bi.GetInternal(schemaKey)
	if err != nil || string(v) != SchemaVersion {
		_ = bi.Close()
		if err != nil {
			return nil, fmt.Errorf("index: open %s: %w", ix.dir, err)
		}
		return nil, fmt.Errorf("index: open %s: schema version %q, this memex needs %q: run `memex reindex`: %w",
			ix.dir, v, SchemaVersion, memex.ErrSchema)
	}
	return bi, nil
}

func create(dir string) (bleve.Index, error) {
	bi, err := bleve.NewUsing(dir, newMapping(), scorch.Name, scorch.Name, nil)
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
func document(d Doc) (*bdoc.Document, error) {
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
	text := func(name string, b []byte, stem bool) {
		if len(b) > 0 {
			doc.AddField(&field{name: name, opts: bindex.IndexField, size: len(b),
				analyze: func() (bindex.TokenFrequencies, int) { return termFreqs(b, stem) }})
		}
	}
	text(fSummary, []byte(summary), true)
	text(fInput, []byte(e.Input), false)
	text(fContent, content, true)
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
func (ix *Index) Add(ctx context.Context, docs ...Doc) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return fmt.Errorf("index: add: closed: %w", memex.ErrInvalid)
	}
	b := ix.bi.NewBatch()
	size := 0
	for _, d := range docs {
		doc, err := document(d)
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
	if ix.closed {
		return fmt.Errorf("index: delete: closed: %w", memex.ErrInvalid)
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
// of the current schema, ready for a bulk load (the first step of a
// rebuild): until Compact, bleve merges none of the segments that Add
// writes, so that each entry is merged once, by Compact, instead of again
// at every tier as the index grows.
func (ix *Index) Reset() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return fmt.Errorf("index: reset: closed: %w", memex.ErrInvalid)
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
	if err == nil && !ix.opts.InMemory {
		// Reopen without merging (the configuration is not recorded in
		// the index: a crash mid-load leaves an index that opens as usual).
		if err = bi.Close(); err == nil {
			bi, err = bleve.OpenUsing(ix.dir, bulkConfig)
		}
	}
	if err != nil {
		ix.closed = true
		return fmt.Errorf("index: reset: %w", err)
	}
	ix.bi, ix.bulk = bi, !ix.opts.InMemory
	return nil
}

// bulkConfig is scorch's configuration between Reset and Compact: no tier
// of segments is ever full, so the background merger does nothing.
var bulkConfig = map[string]interface{}{
	"scorchMergePlanOptions": map[string]interface{}{"MaxSegmentsPerTier": 1 << 20},
}

// compactPlan merges every segment in one step.
var compactPlan = func() mergeplan.MergePlanOptions {
	o := mergeplan.SingleSegmentMergePlanOptions
	o.SegmentsPerMergeTask = 1 << 20
	return o
}()

// Compact merges the index into one segment and returns once that is
// durable; after a bulk load (see Reset) it also resumes background
// merging. One segment is the smallest index (each term's dictionary entry
// once) and the fastest to search. Searches go on while it merges (on the
// segments as they were); after a bulk load, they wait while the index is
// reopened. Cancelling ctx stops the merge; the index stays as it was.
func (ix *Index) Compact(ctx context.Context) error {
	if err := ix.merge(ctx); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return fmt.Errorf("index: compact: closed: %w", memex.ErrInvalid)
	}
	if !ix.bulk {
		return nil
	}
	if err := ix.bi.Close(); err != nil {
		ix.closed = true
		return fmt.Errorf("index: compact: %w", err)
	}
	bi, err := ix.open()
	if err != nil {
		ix.closed = true
		return err
	}
	ix.bi, ix.bulk = bi, false
	return nil
}

// merge merges every segment into one and waits until that is durable.
func (ix *Index) merge(ctx context.Context) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return fmt.Errorf("index: compact: closed: %w", memex.ErrInvalid)
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

// Drop removes an index directory whatever its schema (for a rebuild when
// Open refuses the old one).
func Drop(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("index: drop %s: %w", dir, err)
	}
	return nil
}

// Close releases the index. It is safe to call twice and returns the first
// error.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ix.err
	}
	ix.closed = true
	if err := ix.bi.Close(); err != nil {
		ix.err = fmt.Errorf("index: close: %w", err)
	}
	return ix.err
}
