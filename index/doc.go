// Package index is memex's full-text index of archived entries, on bleve.
//
// The index is derived data: the archive is the source of truth, and the
// index can be dropped and rebuilt from it (`memex reindex`,
// internal/catchup). It holds what search needs and nothing else:
//
//   - summary and content: text, split by the code tokenizer and stemmed
//     (Porter); content is a bounded excerpt of the body (see Excerpt: the
//     first 128 KiB, the error-looking lines of the middle, the last 16
//     KiB);
//   - input (the command or tool arguments): text, split by the code
//     tokenizer, not stemmed;
//   - key: exact terms "name:value" for the filters: tool, kind, agent,
//     project, session, exit, path (every file path mentioned, with its
//     suffixes), and t4 to t8, the first 4 to 8 characters of the ID
//     (spans of time from 12 days down to one second, for before/after).
//
// Nothing is stored but the ID that bleve keeps: hits take their metadata
// from the archive (Options.Entry). No field keeps term vectors
// (positions) or doc values, and there is no composite _all field. Quoted
// phrases are checked against the archived content (Options.Content),
// which also yields the hits' snippets: positions would double the index,
// and the archive holds the exact text anyway. Scoring is BM25.
//
// Documents do not go through a bleve mapping: document builds them, and
// their fields analyse themselves (termFreqs counts terms as the tokenizer
// finds them and stems each distinct term once).
//
// The code tokenizer keeps each word whole and adds its parts:
// parseConfigFile → parseconfigfile, parse, config, file;
// src/auth/middleware.go:42 → the whole, src, auth, middleware, go, 42,
// src/auth/middleware.go, middleware.go. A query word matches a field
// when the field holds the whole word or all of its parts, so `parse
// config`, `middleware.go` and `auth/middleware.go` find what a person
// means. No stop words are removed.
//
// A rebuild empties the index (Reset), loads it with Add, one segment per
// call that bleve merges in tiers in the background, and merges it into
// one segment with Compact (the smallest index, the fastest to search).
//
// On disk the index is bleve's scorch store: root.bolt, which records the
// snapshots, and one file per segment (*.zap). Scorch removes the files of
// segments merged away only when its persister is idle; Close leaves
// root.bolt with the last snapshot alone and the directory with the
// segment files it names (see tidy), so that an index closed right after
// a merge is not left twice its size until some later process stays open
// long enough.
//
// The schema version (SchemaVersion) is stored in the index; Open refuses
// an index of another version with memex.ErrSchema and a hint to run
// `memex reindex`.
//
// Search is bounded in time (Options.Timeout, one second by default): a
// search that runs out returns what it has, marked Partial.
//
// Sessions ranks sessions rather than entries: a query's best hits grouped
// by session, each session by its best hit times the share of the query's
// IDF that its hits hold together, so that a session whose entries between
// them hold a question's words comes before one whose single best entry
// holds some of them.
package index
