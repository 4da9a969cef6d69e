// Package render is the text memex prints for the answers of an
// api.Service and an api.Memory: the session table, a replay's steps, an
// import's report and its problems as they are met, search hits, the
// store's figures, a verification, a rebuild, a forget, lessons, a
// distillation, an export and stale memories, and the lines said of an
// entry archived (by memex run) or shown with credentials replaced. It
// holds what the output looks like, so that cmd/memex keeps to flags,
// wiring and exit codes; JSON output is the answers' own encoding and is
// not here.
package render
