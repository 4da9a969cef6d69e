// Package web is memex's viewer: HTML pages over the archive, served by
// memex serve at / beside the API (api.Options.Viewer mounts a Viewer
// behind the API's Host/Origin guard and its token, see api/viewer.go).
//
// The pages are rendered on the server with html/template, so every byte
// that comes from the archive (content, summaries, inputs, session names)
// is escaped by construction: a transcript holding <script> shows as
// text. A small script (assets/app.js, no framework) adds what needs the
// browser: search as you type, the budget slider, expanding an entry in
// place, line-range links, following a live session. Nothing runs inline:
// the Content-Security-Policy allows scripts and styles from /_/ only.
// Assets and templates are embedded in the binary: the viewer fetches
// nothing from the network.
//
// # Pages
//
//	GET /                     Sessions: newest first, on a per-day timeline, with
//	                          entries, tokens, failures and compactions;
//	                          ?project= &agent= &from= &to= (dates) &page=
//	GET /s/NAME               Session: its replay, a page of steps at a time
//	                          (?project= &agent= name one of several sessions of
//	                          the name; ?page=N or last), failures and
//	                          compaction points marked; a step expands in place
//	GET /e/ID                 Entry (ID or alias): header, stale marks, content
//	                          with line numbers (?from=N pages); #L120-L140
//	                          marks a range, the lines memex show ID --lines
//	                          120:140 prints
//	GET /e/ID/raw             the exact bytes, as a download; ?lines=A:B those
//	                          lines as text, byte for byte what memex show prints
//	GET /e/ID/peek            the fragment of an entry expanded in place
//	GET /search               Search: ?q= in memex search's syntax, and the
//	                          filters project session agent kind tool before after
//	GET /context              Context at a budget: the IndexedSummary of
//	                          ?session= or ?project= at ?budget= tokens
//	GET /eval                 Eval: the plots of saved memex eval budget runs
//	GET /_/FILE               the embedded style sheet and script
//
// Every page answers ?frag=1 with the part its script replaces (the
// search hits, the summary at a budget, a session's steps).
//
// # Live sessions
//
// The last page of a session asks for the steps after the ones it shows
// every Options.Poll (two seconds), while the tab is visible: GET
// /s/NAME?after=N&frag=1 answers them, with the session's entry count in
// X-Memex-Entries. Polling, not server-sent events: an idle session costs
// one scan of its keys per poll, no connection is held open across a
// server's shutdown, and a restarted server is picked up by the next poll.
//
// # Cost on a large archive
//
// Every page that lists is paged. The sessions page reads the archive's
// session keys (Catalog.SessionKeys) to filter, order and page, and reads
// the entries of the sessions of its page only, keeping their figures
// under the session's entry count and last ID (a session that changes gets
// new figures). docs/viewer.md has the measurements.
package web
