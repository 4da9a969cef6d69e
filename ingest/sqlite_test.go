package ingest

// The tests read OpenCode databases: the driver the program registers.
import _ "modernc.org/sqlite"
