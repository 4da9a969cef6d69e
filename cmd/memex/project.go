package main

import "github.com/memex-archive/memex/ingest"

// projectOf names the project of a working directory exactly as ingest
// names a transcript's (its git origin, else its repository root, else the
// directory), so that what `memex add` and `memex run` archive here and
// what an agent's transcript recorded here are one project.
func projectOf(dir string) string { return ingest.DetectProject(dir) }
