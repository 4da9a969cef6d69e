// Package render is the text memex prints for the answers of an
// api.Service: the session table, a replay's steps, an import's report and
// its problems as they are met, search hits. It holds what the output
// looks like, so that cmd/memex keeps to flags, wiring and exit codes;
// JSON output is the answers' own encoding and is not here.
package render
