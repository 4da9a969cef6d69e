package api

import (
	"context"
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// Service is everything memex does with an archive, as one set of typed
// calls: the HTTP handlers and the MCP tools answer with one, and every CLI
// command calls one, chosen once at start: Local over the store it opened,
// or a Client of the `memex serve` that owns the store. The conformance
// suite (internal/service/servicetest) holds every implementation to the
// same answers.
//
// Errors are *memex.Error or wrap the sentinels of package memex
// (ErrNotFound for a missing entry or session, ErrInvalid for a malformed
// request, ...); a Client rebuilds them from the server's answer with the
// table the server encoded them with.
type Service interface {
	// Add archives req.Body under req.Entry and returns the stored entry,
	// once it is durable. The write policy (redaction) is applied by a
	// decorator, once, unless req.NoRedact.
	Add(ctx context.Context, req AddRequest) (memex.Entry, error)
	// Entry resolves ref (an ID or alias; project narrows an alias) and
	// returns the entry's metadata.
	Entry(ctx context.Context, ref, project string) (memex.Entry, error)
	// Lines streams lines req.From..req.To (1-based, inclusive; To <= 0 is
	// the end) of an entry's exact body; the caller closes it.
	Lines(ctx context.Context, req LinesRequest) (io.ReadCloser, error)
	// Show is an entry's content within req.Budget tokens of content (no
	// header is shown, none is counted), as deref.Reader.Show.
	Show(ctx context.Context, req ShowRequest) (ShowResult, error)
	// Search runs q; Before and After are IDs, aliases or times.
	Search(ctx context.Context, q Query) (SearchResult, error)
	// Deref is exact evidence of req.Refs within req.Budget tokens.
	Deref(ctx context.Context, req DerefRequest) (DerefResult, error)
	// Context is the IndexedSummary of a session or project.
	Context(ctx context.Context, req ContextRequest) (ContextResult, error)
	// Sessions lists the sessions f admits, oldest first.
	Sessions(ctx context.Context, f SessionFilter) ([]SessionInfo, error)
	// Stats returns the archive's figures.
	Stats(ctx context.Context) (Stats, error)
	// Replay returns the entries of a session in order, with their
	// content when req.Content.
	Replay(ctx context.Context, req ReplayRequest) ([]EntryJSON, error)
	// Ingest imports transcripts; the write policy (redaction) is applied
	// by a decorator, once, unless req.NoRedact.
	Ingest(ctx context.Context, req IngestRequest) (IngestResult, error)
	// Forget removes entries for good (or counts them, with DryRun).
	Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error)
	// Verify checks every entry and the home's files.
	Verify(ctx context.Context) (VerifyResult, error)
	// Reindex drops the index and rebuilds it from the archive.
	Reindex(ctx context.Context) (ReindexResult, error)
}

// AddRequest is an entry to archive: its metadata and its body, read to
// the end by Add.
type AddRequest struct {
	Entry memex.Entry
	Body  io.Reader
	// NoRedact stores credentials as they are (memex add --no-redact).
	NoRedact bool
}

// LinesRequest names a line range of an entry's body. From 0 is 1; To <= 0
// is the end.
type LinesRequest struct {
	ID       memex.ID
	From, To int64
}

// ShowRequest asks for one entry's content within Budget (> 0) tokens.
type ShowRequest struct {
	Ref     string
	Project string
	Budget  int
}

// ShowResult is a budgeted show: the item shown (its Content is what the
// budget bounds) and the deref result it is the one item of.
type ShowResult struct {
	Item   deref.Item
	Result deref.Result
}

// DerefRequest is a deref: references, the budget for the whole rendering
// (0: deref.DefaultBudget), the query whose lines come first, the project
// narrowing aliases, and the working tree whose files the entries' file
// lines are checked against ("" checks none).
type DerefRequest struct {
	Refs     []string `json:"refs"`
	Budget   int      `json:"budget"`
	Query    string   `json:"query"`
	Project  string   `json:"project"`
	Checkout string   `json:"checkout,omitempty"`
	// Base64 reads an entry that is not valid UTF-8 as the base64 of its
	// bytes, within the budget, instead of a note (deref.Options.Base64).
	Base64 bool `json:"base64,omitempty"`
}

// DerefResult is deref's JSON contract with its plain rendering, which
// the budget bounds.
type DerefResult struct {
	deref.Result
	Text string `json:"text"`
}

// ReplayRequest names a session and whether its entries' contents come
// along.
type ReplayRequest struct {
	Ref     memex.SessionRef
	Content bool
}

// Stats are the archive's figures as memex stats --json prints them and
// GET /v1/stats answers them.
type Stats struct {
	Entries     int64   `json:"entries"`
	Sessions    int64   `json:"sessions"`
	Bodies      int64   `json:"bodies"`
	RawBytes    int64   `json:"raw_bytes"`
	UniqueBytes int64   `json:"unique_bytes"`
	StoredBytes int64   `json:"stored_bytes"`
	DiskBytes   int64   `json:"disk_bytes"`
	Ratio       float64 `json:"ratio"`
	DedupSaved  int64   `json:"dedup_saved_bytes"`
	Tokens      int64   `json:"tokens"`
	Pending     int64   `json:"pending_index"`
	// IndexBytes are the search index's files on disk (DiskBytes are
	// the store's).
	IndexBytes int64 `json:"index_bytes"`
}

// IngestResult is what an import reports, as memex ingest --json prints it
// (the fields of ingest.Report, and Indexed), with the first problems met
// in order (Warnings, at most MaxIngestWarnings, as memex ingest prints
// them while it runs) and the count of the others (MoreWarnings), which
// memex ingest --json leaves out.
type IngestResult struct {
	Files         int            `json:"files"`
	Unchanged     int            `json:"unchanged"`
	Sessions      int            `json:"sessions"`
	Added         int            `json:"added"`
	Present       int            `json:"present"`
	Differ        int            `json:"differ,omitempty"`
	Completed     int            `json:"completed,omitempty"`
	Skipped       map[string]int `json:"skipped,omitempty"`
	Unknown       map[string]int `json:"unknown,omitempty"`
	Ignored       map[string]int `json:"ignored,omitempty"`
	Redacted      int            `json:"redacted"`
	RedactedKinds map[string]int `json:"redacted_kinds,omitempty"`
	InvalidUTF8   int            `json:"invalid_utf8,omitempty"`
	Bytes         int64          `json:"bytes"`
	BodyBytes     int64          `json:"body_bytes"`
	Commits       int            `json:"commits,omitempty"`
	FileErrors    []string       `json:"file_errors,omitempty"`
	Unusable      []string       `json:"unusable,omitempty"`
	Indexed       int            `json:"indexed"`
	Warnings      []string       `json:"warnings,omitempty"`
	MoreWarnings  int            `json:"more_warnings,omitempty"`
}
