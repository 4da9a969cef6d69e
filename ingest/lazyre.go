package ingest

import "github.com/memex-archive/memex/internal/lazyre"

// lazyRE returns a regular expression compiled on its first use
// (internal/lazyre): this package's patterns cost a process nothing until
// it needs them.
var lazyRE = lazyre.New
