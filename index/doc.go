// Package index is memex's full-text index of archived entries, on bleve.
//
// The index is derived data: the archive is the source of truth, and the
// index can be dropped and rebuilt from it (`memex reindex`,
// internal/catchup). It holds what search needs and little else:
//
//   - summary and content: text under the memex_text analyzer (the code
//     tokenizer plus Porter stemming); content is a bounded excerpt of the
//     body (see Excerpt: the first 128 KiB, the error-looking lines of the
//     middle, the last 16 KiB);
//   - input (the command or tool arguments): text under memex_code (the
//     code tokenizer, no stemming);
//   - tool, kind, agent, project, session, id, and path (every file path
//     mentioned, with its suffixes): exact keywords;
//   - created (the ID's millisecond) and exit: numbers;
//   - meta: the one stored field, the few hundred bytes a hit shows
//     (summary, tokens, session, project, agent, created, aliases), used
//     when Options.Entry does not supply them fresh from the archive.
//
// No field keeps term vectors (positions) or doc values, and nothing goes
// to bleve's composite _all field. Quoted phrases are checked against the
// archived content (Options.Content), which also yields the hits'
// snippets: positions would double the index, and the archive holds the
// exact text anyway. Scoring is BM25.
//
// The code tokenizer keeps each word whole and adds its parts:
// parseConfigFile → parseconfigfile, parse, config, file;
// src/auth/middleware.go:42 → the whole, src, auth, middleware, go, 42,
// src/auth/middleware.go, middleware.go. A query word matches a field
// when the field holds the whole word or all of its parts, so `parse
// config`, `middleware.go` and `auth/middleware.go` find what a person
// means. No stop words are removed.
//
// The schema version (SchemaVersion) is stored in the index; Open refuses
// an index of another version with memex.ErrSchema and a hint to run
// `memex reindex`.
//
// Search is bounded in time (Options.Timeout, one second by default): a
// search that runs out returns what it has, marked Partial.
package index
