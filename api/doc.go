// Package api serves the archive to agents and tools: a JSON HTTP API under
// /v1 (chi) and the Memex tools over MCP (the official Go SDK), both over
// streamable HTTP at /mcp and over stdio.
//
// It imports only the domain types and deref. What it needs of the archive,
// the index and the catalog it declares as small interfaces (Store,
// Index, Catalog); cmd/memex wires the concrete types.
// chi and MCP SDK types never leave this package.
//
// # HTTP
//
//	GET  /healthz                       {"ok":true,"version":V,"id":I}; never needs the token (id: KeyID of the server's key)
//	POST /v1/entries                    add: raw body + metadata in the query
//	                                    (project session agent kind tool input
//	                                    summary alias... attr=K=V... exit created
//	                                    no_redact), streamed, unbounded unless
//	                                    Options.MaxBody;
//	                                    or a JSON object {"content"|"content_base64",
//	                                    ..., "no_redact"}; no_redact stores
//	                                    credentials as they are (add --no-redact);
//	                                    201 with the stored entry. Content may
//	                                    be empty ("" or an empty raw body) but
//	                                    a JSON object must give it: {} is 400
//	GET  /v1/entries/{ref}              exact bytes (application/octet-stream);
//	                                    ?lines=A:B a line range; ?budget=N a
//	                                    deref of the one entry (text/plain);
//	                                    &header=0 the content alone within N
//	                                    tokens, header neither shown nor counted;
//	                                    ?format=json (or Accept: application/json)
//	                                    the metadata with "content" (text), or
//	                                    "content_base64" and no "content" when
//	                                    the bytes are not valid UTF-8 (streamed;
//	                                    &indent=N indents it by N spaces)
//	POST /v1/deref                      {"refs":[...],"budget":N,"query":"","project":"",
//	                                    "checkout":DIR,"base64":false} -> the
//	                                    deref contract's JSON plus "text";
//	                                    "base64":true reads a binary entry as
//	                                    base64 within the budget, not a note
//	GET  /v1/search?q=...               limit project session agent kind tool
//	                                    before after (IDs or aliases)
//	GET  /v1/context                    session agent project budget before checkout
//	                                    -> the IndexedSummary
//	GET  /v1/sessions                   project agent -> every session (SessionInfo:
//	                                    agent, project, start, end, entries,
//	                                    tokens, compactions, parent), oldest first
//	GET  /v1/sessions/{session}         the session's entries in order (replay);
//	                                    ?content=1 adds each one's exact content,
//	                                    as "content" or "content_base64" like
//	                                    GET /v1/entries/{ref}?format=json
//	GET  /v1/stats                      archive figures
//	POST /v1/ingest                     {"format":"claude-code","paths":[...],
//	                                    "project","no_redact","full","no_index",
//	                                    "since" (RFC 3339),"max" (git only)}:
//	                                    import transcripts the server can read
//	                                    (absolute paths on its filesystem; none:
//	                                    the format's default locations there)
//	                                    -> the Ingester's report; internal/service's is
//	                                    memex ingest --json's plus "warnings"
//	                                    (the first 20 problems) and
//	                                    "more_warnings" (how many others)
//	GET  /v1/handoff                    project budget exclude checkout -> the
//	                                    handoff capsule (package memory's JSON,
//	                                    with "text"); format=text: the text alone
//	GET  /v1/stale                      project limit checkout -> the memories
//	                                    whose file lines changed in the
//	                                    checkout, newest first
//	GET  /v1/procedures                 project family -> the procedures of
//	                                    the project (memex procedures --json);
//	                                    format=text: their Markdown
//	GET  /v1/hint                       ref project -> {"text"}: the lesson to
//	                                    remind of after the failed run ref
//	                                    (the PostToolUse hook); 404 for none
//	GET  /v1/lessons                    project session status limit -> the
//	                                    failure lessons (memex lessons --json)
//	POST /v1/distill                    {"project"} -> {"sessions","lessons",
//	                                    "added","kept","removed","runs"}: memex
//	                                    distill while memex serve owns the store
//	POST /v1/forget                     {"refs":[...]} | {"session","project","agent"} |
//	                                    {"project"}, "dry_run" -> {"forgotten":N}
//	                                    (with dry_run {"forgotten":0,"matched":N})
//	POST /v1/verify                     -> {"checked","problems":[{"id","message"}],
//	                                    "files":[{"path","message"}]}
//	POST /v1/reindex                    -> {"indexed","no_content"}: memex forget,
//	                                    verify and reindex go through these
//	                                    while memex serve owns the store
//	     /mcp                           MCP, streamable HTTP
//	GET  /...                           the web viewer (Options.Viewer, package
//	                                    api/web): every other path; with a token,
//	                                    a browser signs in once (POST /_login, or
//	                                    a link with ?token=) and carries a cookie
//	                                    that opens the viewer only (viewer.go)
//
// checkout names the client's checkout (an absolute directory: its
// repository root, or any directory in it): the file lines entries showed
// are checked against the files there, so that a served mark says what the
// client's files hold, not the server's. Deref and context without it
// check nothing; handoff and stale check the server's own directory.
//
// Every route refuses a Host that is not loopback or in Options.Hosts
// (DNS rebinding) and a foreign Origin with 403 "forbidden"; JSON routes
// refuse a body not sent as application/json with 415; POST /v1/ingest
// reads only under Options.IngestRoots unless the request carries
// Options.Key (guard.go).
//
// Errors are {"error":{"code":"not_found","message":"...","hint":"..."}}
// with the status that one table (errorTable) gives each memex sentinel
// error; an error that carries its sentence (a *memex.Error) sends its
// What as the message and its Hint, which Client rebuilds (DecodeError).
//
// # Limits
//
// Request bodies are cut at Options.MaxBody (adds) and MaxJSON (JSON
// requests) with 413; headers at 64 KiB; a client has ReadHeaderTimeout to
// send its headers and ReadTimeout for the whole request; at most
// MaxInFlight /v1 requests are served at once (others queue, then get 503). Whenever Options.Token is set every route but /healthz
// needs "Authorization: Bearer TOKEN"; cmd/memex sets one whenever it binds
// anything but loopback. Serve stops on context cancellation and lets
// in-flight requests finish: an add that was acknowledged is durable.
//
// # MCP tools
//
// memex_search, memex_read, memex_compress and memex_context, described in
// mcp.go, memex_handoff (memory.go) and memex_procedures (procedures.go). Their text results stay under MaxToolTokens (Claude Code cuts MCP
// results above 25,000 tokens).
package api
