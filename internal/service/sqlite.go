package service

// The SQLite driver ingest reads OpenCode's sessions with (ingest.OpenCode,
// through database/sql as ingest.SQLiteDriver): registered here, where
// every import runs, in memex and its server alike, and not in ingest, so
// that memex-hook, which links ingest for its tool-call rules, does not
// pay for SQLite's initialisation.
import _ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite": no cgo
