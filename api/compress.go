package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/memex-archive/memex"
)

// maxTranscript bounds how much of a session's archived transcript an
// anchored block is searched in.
const maxTranscript = 64 << 20

// compress archives the agent's summary and blocks (memex_compress).
func (s *Server) compress(ctx context.Context, in compressInput) ([]compressed, error) {
	if strings.TrimSpace(in.Summary) == "" && len(in.Blocks) == 0 {
		return nil, fmt.Errorf("memex_compress: give a summary or blocks: %w", memex.ErrInvalid)
	}
	session := in.Session
	if session == "" {
		session = s.session()
	}
	anchored := func(b block) bool { return b.StartAnchor != "" || b.MidAnchor != "" || b.EndAnchor != "" }
	for i, b := range in.Blocks {
		if strings.TrimSpace(b.Key) == "" {
			return nil, fmt.Errorf("memex_compress: block %d: key is empty: %w", i, memex.ErrInvalid)
		}
		switch {
		case b.Content != "" && anchored(b):
			return nil, fmt.Errorf("memex_compress: block %q: give content or anchors, not both: %w", b.Key, memex.ErrInvalid)
		case b.Content != "":
		case !anchored(b):
			return nil, fmt.Errorf("memex_compress: block %q: give content or start_anchor and end_anchor: %w", b.Key, memex.ErrInvalid)
		case b.StartAnchor == "" || b.EndAnchor == "":
			return nil, fmt.Errorf("memex_compress: block %q: an anchored block needs start_anchor and end_anchor: %w", b.Key, memex.ErrInvalid)
		case session == "":
			return nil, fmt.Errorf("memex_compress: block %q: anchors need the live session, and none is known: give session: %w", b.Key, memex.ErrInvalid)
		}
	}
	ref := memex.SessionRef{Session: session, Project: in.Project, Agent: s.opts.Agent}
	var entries []EntryJSON
	var found error // why the session was not found, nil when it was
	if session != "" {
		ref, entries, found = s.sessionOf(ctx, session, in.Project)
	}
	contents := make([][]byte, len(in.Blocks))
	var tr *transcript
	for i, b := range in.Blocks {
		if !anchored(b) {
			contents[i] = []byte(b.Content)
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("memex_compress: %w", found)
		}
		if tr == nil {
			var err error
			if tr, err = s.loadTranscript(ctx, entries); err != nil {
				return nil, err
			}
		}
		got, ok := tr.extract(b.StartAnchor, b.MidAnchor, b.EndAnchor)
		if !ok {
			return nil, fmt.Errorf("memex_compress: block %q: no span of session %s starts with start_anchor, contains mid_anchor and ends with end_anchor (anchors must be exact text of archived entries): %w",
				b.Key, session, memex.ErrNotFound)
		}
		contents[i] = got
	}
	project := in.Project
	if project == "" {
		project = ref.Project
	}
	// Without a session that names one, the project the server runs in,
	// as memex_handoff's default: a note of no project is in no handoff.
	if project == "" && s.opts.Checkout != nil {
		if co := s.opts.Checkout(s.ownDir()); co != nil {
			project = co.Project
		}
	}
	base := memex.Entry{Project: project, Session: session, Agent: ref.Agent, Kind: memex.KindNote}
	var out []compressed
	if strings.TrimSpace(in.Summary) != "" {
		e := base
		e.AgentSummary = oneLine(in.Summary, 200)
		e.Attrs = map[string]string{"memex": "compress-summary"}
		got, err := s.svc.Add(ctx, AddRequest{Entry: e, Body: strings.NewReader(in.Summary)})
		if err != nil {
			return out, fmt.Errorf("memex_compress: summary: %w", err)
		}
		out = append(out, compressed{Key: "summary", ID: got.ID, Tokens: got.Tokens, Redacted: got.Redacted})
	}
	for i, b := range in.Blocks {
		e := base
		e.Aliases = []string{b.Key}
		e.AgentSummary = oneLine(b.Summary, 200)
		e.Attrs = map[string]string{"memex": "compress-block"}
		got, err := s.svc.Add(ctx, AddRequest{Entry: e, Body: bytes.NewReader(contents[i])})
		if err != nil {
			return out, fmt.Errorf("memex_compress: block %q: %w", b.Key, err)
		}
		out = append(out, compressed{Key: b.Key, ID: got.ID, Aliases: got.Aliases, Tokens: got.Tokens, Redacted: got.Redacted})
	}
	return out, nil
}

// transcript is a session's archived entries, in order, for anchor search.
type transcript struct {
	bodies [][]byte
}

// sessionOf is the archived session named session (of project, when
// given) with its entries: the one session of that name, else, when
// several share it, the one of this server's agent. Blocks filed under the
// server's agent beside a session of another (the live session, which the
// host's hooks archive) would start a second session of the same name,
// which the name alone (memex_context's live session) would then no
// longer name. A name of no archived session is a new session of the
// server's agent, with notFound saying why.
func (s *Server) sessionOf(ctx context.Context, session, project string) (ref memex.SessionRef, entries []EntryJSON, notFound error) {
	ref = memex.SessionRef{Session: session, Project: project, Agent: s.opts.Agent}
	entries, err := s.svc.Replay(ctx, ReplayRequest{Ref: memex.SessionRef{Session: session, Project: project}})
	if errors.Is(err, memex.ErrAmbiguous) && s.opts.Agent != "" {
		if mine, err2 := s.svc.Replay(ctx, ReplayRequest{Ref: ref}); err2 == nil {
			entries, err = mine, nil
		}
	}
	if err != nil {
		return ref, nil, err
	}
	// A replay takes a unique prefix of a name for its session; blocks
	// join the session of the name given, exactly.
	if len(entries) == 0 || entries[0].Session != session {
		return ref, nil, memex.Errorf(memex.ErrNotFound, "session %q: not found; memex sessions lists them", session)
	}
	return memex.SessionRef{Session: session, Project: entries[0].Project, Agent: entries[0].Agent}, entries, nil
}

func (s *Server) loadTranscript(ctx context.Context, entries []EntryJSON) (*transcript, error) {
	tr := &transcript{}
	var total int64
	// Newest first: a block is most likely about recent work, and the cap
	// then drops the oldest.
	for i := len(entries) - 1; i >= 0 && total < maxTranscript; i-- {
		e := entries[i]
		rc, err := s.svc.Lines(ctx, LinesRequest{ID: e.ID})
		if err != nil {
			return nil, fmt.Errorf("memex_compress: read %s: %w", e.ID, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxTranscript-total))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("memex_compress: read %s: %w", e.ID, err)
		}
		total += int64(len(b))
		tr.bodies = append(tr.bodies, b)
	}
	return tr, nil
}

// extract returns the span of one archived entry that starts with start,
// ends with end and holds mid (when given) in between: the latest such span
// of the newest entry that has one, and of those the shortest.
func (t *transcript) extract(start, mid, end string) ([]byte, bool) {
	st, md, en := []byte(start), []byte(mid), []byte(end)
	for _, b := range t.bodies {
		for at := bytes.LastIndex(b, st); at >= 0; at = bytes.LastIndex(b[:at], st) {
			rest := b[at:]
			// The end may overlap the start (a one-line block whose anchors
			// are its beginning and its end), but must end after it.
			from := 0
			for {
				k := bytes.Index(rest[from:], en)
				if k < 0 {
					break
				}
				stop := from + k + len(en)
				if stop >= len(st) && (len(md) == 0 || bytes.Contains(rest[:stop], md)) {
					return bytes.Clone(rest[:stop]), true
				}
				from += k + 1
			}
			if at == 0 {
				break
			}
		}
	}
	return nil, false
}
