package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memex-archive/memex"
)

// SchemaVersion names the mapping, analysis and document layout. An index
// written under another version cannot be searched correctly; Open fails
// with memex.ErrSchema and the user runs `memex reindex`.
const SchemaVersion = "4"

// schemaKey is the bleve internal key holding SchemaVersion.
var schemaKey = []byte("memex.schema")

// Field names of an indexed entry (also the field:value names of the query
// syntax, see Query).
const (
	fSummary = "summary" // display summary plus derived summary, stemmed text
	fContent = "content" // bounded excerpt of the body (see Excerpt), stemmed text
	fInput   = "input"   // command or tool arguments, code text
	fTool    = "tool"    // keyword
	fKind    = "kind"    // keyword
	fAgent   = "agent"   // keyword
	fProject = "project" // keyword
	fSession = "session" // keyword
	fPath    = "path"    // keyword: every file path mentioned, and its suffixes
	fID      = "id"      // keyword: the ID's 26 characters (ordered like IDs)
	fCreated = "created" // number: the ID's millisecond timestamp
	fExit    = "exit"    // number: exit status when known
	fMeta    = "meta"    // stored only: what a hit shows when Options.Entry is nil
)

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
	// as all their words.
	Content func(ctx context.Context, id memex.ID) (io.ReadCloser, error)

	// Entry returns an entry's metadata, for the hits' summary, tokens,
	// session and the rest, fresh from the archive (aliases added since
	// indexing included). An error wrapping memex.ErrNotFound drops the
	// hit and removes it from the index, as for Content. Nil: hits show
	// the copy stored in the index at indexing time.
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

	mu     sync.RWMutex // held for reading by every operation, for writing by Reset and Close
	bi     bleve.Index
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
	bi, err := bleve.Open(ix.dir)
	if err != nil {
		return nil, fmt.Errorf("index: open %s: %v (run `memex reindex` to rebuild it): %w", ix.dir, err, memex.ErrSchema)
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
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("index: mapping: %w", err)
	}
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
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

// newMapping is the schema: what each field indexes. Nothing is stored but
// one small field, the few hundred bytes a hit shows (so that a hit needs
// no archive read), no field keeps term vectors (quoted phrases are
// checked against archived content instead), nothing goes into bleve's
// composite _all field, and nothing keeps doc values (memex sorts by
// score or by ID only).
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(codeAnalyzerName, map[string]interface{}{
		"type":      custom.Name,
		"tokenizer": codeTokenizerName,
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(textAnalyzerName, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     codeTokenizerName,
		"token_filters": []string{porter.Name},
	}); err != nil {
		return nil, err
	}
	im.ScoringModel = bindex.BM25Scoring
	im.DefaultAnalyzer = keyword.Name
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false

	text := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := text(keyword.Name)
		f.SkipFreqNorm = true
		return f
	}
	num := func() *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.Store = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	meta := bleve.NewTextFieldMapping()
	meta.Index = false
	meta.Store = true
	meta.IncludeTermVectors = false
	meta.IncludeInAll = false
	meta.DocValues = false

	dm := bleve.NewDocumentStaticMapping()
	// Without this, bleve still builds the composite _all field of every
	// document (empty, as no field is included), at a tenth of the
	// indexing time.
	dm.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	dm.AddFieldMappingsAt(fSummary, text(textAnalyzerName))
	dm.AddFieldMappingsAt(fContent, text(textAnalyzerName))
	dm.AddFieldMappingsAt(fInput, text(codeAnalyzerName))
	for _, f := range []string{fTool, fKind, fAgent, fProject, fSession, fPath, fID} {
		dm.AddFieldMappingsAt(f, kw())
	}
	dm.AddFieldMappingsAt(fCreated, num())
	dm.AddFieldMappingsAt(fExit, num())
	dm.AddFieldMappingsAt(fMeta, meta)
	im.DefaultMapping = dm
	return im, im.Validate()
}

// stemFilter is the stemmer of textAnalyzerName, applied to query terms.
var stemFilter = porter.NewPorterStemmer()

// Doc is one entry to index: its metadata and its content (or an excerpt
// of it, see Excerpt; Add indexes at most ContentLimit bytes of it).
type Doc struct {
	Entry   memex.Entry
	Content []byte
}

// meta is the stored part of a document: what a hit shows. Short JSON
// names: it is the one stored cost per entry.
type meta struct {
	Summary string     `json:"s,omitempty"`
	Tokens  int64      `json:"t,omitempty"`
	Session string     `json:"se,omitempty"`
	Project string     `json:"p,omitempty"`
	Agent   string     `json:"a,omitempty"`
	Kind    memex.Kind `json:"k,omitempty"`
	Tool    string     `json:"to,omitempty"`
	Created time.Time  `json:"c"`
	Aliases []string   `json:"al,omitempty"`
	Exit    *int       `json:"x,omitempty"`
	Input   string     `json:"i,omitempty"` // first line, bounded, for snippets
}

// maxMetaInput bounds the stored copy of the input.
const maxMetaInput = 200

func (m meta) entry(id memex.ID) memex.Entry {
	return memex.Entry{ID: id, Summary: m.Summary, Tokens: m.Tokens, Session: m.Session, Project: m.Project,
		Agent: m.Agent, Kind: m.Kind, Tool: m.Tool, Created: m.Created, Aliases: m.Aliases, Exit: m.Exit, Input: m.Input}
}

// document maps d to the fields of the schema.
func document(d Doc) (string, map[string]interface{}, error) {
	e := d.Entry
	if e.ID.IsZero() {
		return "", nil, fmt.Errorf("index: add: entry without ID: %w", memex.ErrInvalid)
	}
	content := d.Content
	if len(content) > ContentLimit {
		content = content[:ContentLimit]
	}
	summary := e.DisplaySummary()
	if e.AgentSummary != "" && e.Summary != "" && e.Summary != e.AgentSummary {
		summary += "\n" + e.Summary
	}
	mb, err := json.Marshal(meta{
		Summary: e.DisplaySummary(), Tokens: e.Tokens, Session: e.Session, Project: e.Project,
		Agent: e.Agent, Kind: e.Kind, Tool: e.Tool, Created: e.Created, Aliases: e.Aliases, Exit: e.Exit,
		Input: truncate(firstLine(e.Input), maxMetaInput),
	})
	if err != nil {
		return "", nil, fmt.Errorf("index: add %s: %w", e.ID, err)
	}
	doc := map[string]interface{}{
		fID:      e.ID.String(),
		fCreated: float64(e.ID.Time().UnixMilli()),
		fMeta:    string(mb),
	}
	set := func(k, v string) {
		if v != "" {
			doc[k] = v
		}
	}
	set(fSummary, summary)
	set(fContent, string(content))
	set(fInput, e.Input)
	set(fTool, e.Tool)
	set(fKind, string(e.Kind))
	set(fAgent, e.Agent)
	set(fProject, e.Project)
	set(fSession, e.Session)
	if e.Exit != nil {
		doc[fExit] = float64(*e.Exit)
	}
	if paths := Paths(e.Input, content); len(paths) > 0 {
		doc[fPath] = paths
	}
	return e.ID.String(), doc, nil
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
		id, doc, err := document(d)
		if err != nil {
			return err
		}
		if err := b.Index(id, doc); err != nil {
			return fmt.Errorf("index: add %s: %w", id, err)
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
// of the current schema (the first step of a rebuild).
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
	if err != nil {
		ix.closed = true
		return err
	}
	ix.bi = bi
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
