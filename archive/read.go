package archive

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	gojson "github.com/goccy/go-json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/memex-archive/memex"
)

// Get returns the metadata of entry id without touching its body. A missing
// entry is memex.ErrNotFound.
func (s *Store) Get(ctx context.Context, id memex.ID) (memex.Entry, error) {
	r, err := s.getRecord(id)
	if err != nil {
		return memex.Entry{}, fmt.Errorf("archive: get %s: %w", id, err)
	}
	return r.Entry, nil
}

func (s *Store) getRecord(id memex.ID) (record, error) {
	v, err := s.get(idKey(prefixMeta, id))
	if err != nil {
		return record{}, err
	}
	return decodeRecord(id, v)
}

// decodeRecord decodes the metadata stored under entry id. An inline body
// is returned as a subslice of v.
func decodeRecord(id memex.ID, v []byte) (record, error) {
	if len(v) == 0 {
		return record{}, fmt.Errorf("metadata: empty value: %w", memex.ErrCorrupt)
	}
	var sum, js []byte
	r := record{Body: id}
	switch v[0] {
	case codecJSON:
		js = v[1:]
	case codecMeta, codecInline:
		if len(v) < 1+sha256.Size {
			return record{}, fmt.Errorf("metadata: %d bytes: %w", len(v), memex.ErrCorrupt)
		}
		sum, js = v[1:1+sha256.Size], v[1+sha256.Size:]
		if v[0] == codecInline {
			n, k := binary.Uvarint(js)
			if k <= 0 || n > uint64(len(js)-k) {
				return record{}, fmt.Errorf("metadata: record length: %w", memex.ErrCorrupt)
			}
			r.hasInline, r.inline = true, js[k+int(n):]
			js = js[k : k+int(n)]
		}
	default:
		return record{}, fmt.Errorf("metadata codec %d: %w", v[0], memex.ErrCorrupt)
	}
	var sr storedRecord
	if err := unmarshalRecord(js, &sr); err != nil {
		return record{}, fmt.Errorf("metadata: %v: %w", err, memex.ErrCorrupt)
	}
	r.Entry = sr.Entry
	r.ID = id
	r.Hash = sr.Hash
	if sum != nil {
		r.Hash = "sha256:" + hex.EncodeToString(sum)
	}
	if sr.Body != nil {
		r.Body = *sr.Body
	}
	return r, nil
}

// Resolve turns ref (an ID, or an alias) into an ID. An alias names, in
// each project, the newest entry written under it (see the package doc);
// one that names entries in several projects is memex.ErrAmbiguous,
// listing them, unless project narrows it to one. A ref naming nothing is
// memex.ErrNotFound.
func (s *Store) Resolve(ctx context.Context, ref, project string) (memex.ID, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return memex.ID{}, fmt.Errorf("archive: resolve: empty reference: %w", memex.ErrInvalid)
	}
	if id, err := memex.ParseID(ref); err == nil {
		if _, err := s.get(idKey(prefixMeta, id)); err == nil {
			return id, nil
		} else if !errors.Is(err, memex.ErrNotFound) {
			return memex.ID{}, fmt.Errorf("archive: resolve %s: %w", ref, err)
		}
		// An ID of nothing may still be someone's alias; fall through.
	}
	named, err := s.aliasScopes(ctx, ref)
	if err != nil {
		return memex.ID{}, fmt.Errorf("archive: resolve %s: %w", ref, err)
	}
	if project != "" && len(named) > 1 {
		id, ok := named[project]
		if !ok {
			return memex.ID{}, fmt.Errorf("archive: %w", memex.Errorf(memex.ErrNotFound,
				"alias %q names no entry of project %s (it names entries of %s): not found", ref, project, projectList(named)))
		}
		return id, nil
	}
	switch len(named) {
	case 0:
		if id, ok, err := s.resolveStep(ctx, ref, project); ok || err != nil {
			return id, err
		}
		return memex.ID{}, fmt.Errorf("archive: %w", memex.Errorf(memex.ErrNotFound, "%s: not found", ref))
	case 1:
		for _, id := range named {
			return id, nil
		}
	}
	projects := slices.Sorted(maps.Keys(named))
	names := make([]string, len(projects))
	for i, p := range projects {
		names[i] = named[p].String() + " (" + projectName(p) + ")"
	}
	return memex.ID{}, fmt.Errorf("archive: %w", memex.Errorf(memex.ErrAmbiguous, "alias %q names entries in %d projects: %s",
		ref, len(named), strings.Join(names, ", ")).WithHint("narrow it with the project (--project, ?project=) or name one by its ID"))
}

// resolveStep resolves ref when it is SESSION#N, the N-th tool call of a
// session, with SESSION the unique prefix of a session's name that replay
// and context take (memex sessions shows a UUID by one). ok is false when
// ref is not such a step, or names no entry; an ambiguous prefix is the
// error that lists its sessions.
func (s *Store) resolveStep(ctx context.Context, ref, project string) (id memex.ID, ok bool, err error) {
	i := strings.LastIndexByte(ref, '#')
	if i <= 0 || i == len(ref)-1 || strings.Trim(ref[i+1:], "0123456789") != "" {
		return memex.ID{}, false, nil
	}
	full, err := s.ResolveSession(ctx, memex.SessionRef{Session: ref[:i], Project: project})
	if err != nil {
		return memex.ID{}, false, err
	}
	if full.Session == ref[:i] {
		return memex.ID{}, false, nil // a whole name (or none): its alias is not there
	}
	id, err = s.Resolve(ctx, full.Session+ref[i:], project)
	if errors.Is(err, memex.ErrNotFound) {
		return memex.ID{}, false, nil
	}
	return id, err == nil, err
}

// Lookup returns the newest entry written under alias in project's scope,
// or memex.ErrNotFound: ingest checks its idempotency keys with it. Unlike
// Resolve it never answers with another project's entry, except that no
// project is everyone's: an entry of no project matches any project, and
// project "" matches entries of every project (a tool call captured by a
// hook given no working directory, and the same call imported from the
// transcript with its project, are one record).
func (s *Store) Lookup(ctx context.Context, alias, project string) (memex.ID, error) {
	may, err := s.aliases.mayName(ctx, s, alias, project)
	var named map[string]memex.ID // nil: ruled out by the filter
	if may && err == nil {
		named, err = s.aliasScopes(ctx, alias)
	}
	if err != nil {
		return memex.ID{}, fmt.Errorf("archive: lookup %s: %w", alias, err)
	}
	var newest memex.ID
	for p, id := range named {
		if (project == "" || p == "" || p == project) && id.Compare(newest) > 0 {
			newest = id
		}
	}
	if newest.IsZero() {
		return memex.ID{}, fmt.Errorf("archive: lookup %s in %s: %w", alias, projectName(project), memex.ErrNotFound)
	}
	return newest, nil
}

// aliasScopes returns, per project, the newest entry that alias names
// there. A version 2 key carries no project: its entry's record says.
func (s *Store) aliasScopes(ctx context.Context, alias string) (map[string]memex.ID, error) {
	named := map[string]memex.ID{}
	p := nameKey(prefixAlias, alias)
	err := s.scanPrefix(ctx, p, func(k, _ []byte) error {
		scope, id, v2, ok := parseScope(k[len(p):], 1)
		if !ok {
			return nil
		}
		var project string
		if v2 {
			r, err := s.getRecord(id)
			if errors.Is(err, memex.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			project = r.Project
		} else {
			project = scope[0]
		}
		if old, ok := named[project]; !ok || id.Compare(old) > 0 {
			named[project] = id
		}
		return nil
	})
	return named, err
}

// projectName is how listings name a project ("" is no project).
func projectName(p string) string {
	if p == "" {
		return "no project"
	}
	return "project " + p
}

func projectList(named map[string]memex.ID) string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(named)) {
		out = append(out, projectName(p))
	}
	return strings.Join(out, ", ")
}

// unmarshalRecord decodes a record's JSON. A damaged record must come out
// as an error that verify reports, never as a panic of the decoder.
func unmarshalRecord(js []byte, sr *storedRecord) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decode: %v", p)
		}
	}()
	return gojson.Unmarshal(js, sr)
}

// Body streams the exact content of entry id. The caller must Close it.
func (s *Store) Body(ctx context.Context, id memex.ID) (io.ReadCloser, error) {
	return s.Lines(ctx, id, 1, 0)
}

// ReadAll returns the whole content of entry id, in one allocation of the
// entry's size. Use Body for content of unknown size. The returned slice is
// the caller's.
func (s *Store) ReadAll(ctx context.Context, id memex.ID) ([]byte, error) {
	return s.AppendBody(ctx, id, nil)
}

// AppendBody appends the whole content of entry id to dst and returns the
// extended slice (growing it at most once, to the entry's size), so that a
// caller reading many bodies can reuse one buffer. Every chunk decodes
// straight into it.
func (s *Store) AppendBody(ctx context.Context, id memex.ID, dst []byte) ([]byte, error) {
	rc, err := s.Body(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := rc.(*bodyReader)
	var size int
	for _, n := range br.t.sizes {
		size += int(n)
	}
	if cap(dst)-len(dst) < size {
		dst = append(make([]byte, 0, len(dst)+size), dst...)
	}
	for br.next < len(br.t.sizes) {
		if dst, err = br.decodeNext(dst); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Lines streams lines from..to (1-based, inclusive, each with its '\n')
// of entry id; to <= 0 means to the end. Only the chunks holding those
// lines are read. A from beyond the last line is memex.ErrInvalid.
func (s *Store) Lines(ctx context.Context, id memex.ID, from, to int64) (io.ReadCloser, error) {
	r, err := s.getRecord(id)
	if err != nil {
		return nil, fmt.Errorf("archive: read %s: %w", id, err)
	}
	if from < 1 || (to > 0 && to < from) {
		return nil, fmt.Errorf("archive: read %s: line range %d:%d: %w", id, from, to, memex.ErrInvalid)
	}
	if from > 1 && from > r.Lines {
		return nil, fmt.Errorf("archive: read %s: %w", id, memex.Errorf(memex.ErrInvalid,
			"line %d is past the end of %s (%s)", from, id, plural(int(r.Lines), "line", "lines")))
	}
	var t chunkTable
	if !r.hasInline {
		tv, err := s.get(idKey(prefixTable, r.Body))
		switch {
		case err == nil:
			if t, err = decodeTable(tv); err != nil {
				return nil, fmt.Errorf("archive: read %s: %w", id, err)
			}
		case errors.Is(err, memex.ErrNotFound) && r.Body != id:
			// The body is inline in the record of the entry that first
			// stored it.
			if owner, oerr := s.getRecord(r.Body); oerr == nil && owner.hasInline {
				r.hasInline, r.inline = true, owner.inline
				break
			}
			fallthrough
		default:
			if errors.Is(err, memex.ErrNotFound) {
				err = fmt.Errorf("body %s missing: %w", r.Body, memex.ErrCorrupt)
			}
			return nil, fmt.Errorf("archive: read %s: %w", id, err)
		}
	}
	if r.hasInline && len(r.inline) > 0 {
		// An inline body reads as a table of one chunk (or none).
		t.sizes = []uint32{uint32(len(r.inline))}
		t.nls = []uint32{uint32(bytes.Count(r.inline, []byte{'\n'}))}
	}
	br := &bodyReader{ctx: ctx, s: s, body: r.Body, t: t, id: id, inline: r.inline}
	if from == 1 && to <= 0 {
		return br, nil
	}
	// Start at the chunk holding newline number from-1 (the one that ends
	// the line before from), then skip within it.
	var before int64 // newlines before chunk br.next
	skip := from - 1
	for br.next < len(t.sizes) && skip > 0 && before+int64(t.nls[br.next]) < skip {
		before += int64(t.nls[br.next])
		br.next++
	}
	lr := &lineReader{r: br, skip: skip - before, want: -1}
	if to > 0 {
		lr.want = to - from + 1
	}
	return lr, nil
}

// bodyReader yields a body's chunks in order, decompressing one at a time.
type bodyReader struct {
	ctx    context.Context
	s      *Store
	id     memex.ID
	body   memex.ID
	t      chunkTable
	inline []byte // the body, when its record holds it (one chunk in t)
	next   int
	buf    []byte
	pooled bool // buf is from chunkPool
	off    int
}

func (b *bodyReader) Read(p []byte) (int, error) {
	for b.off >= len(b.buf) {
		if b.next >= len(b.t.sizes) {
			return 0, io.EOF
		}
		if err := b.ctx.Err(); err != nil {
			return 0, err
		}
		if b.inline != nil {
			b.buf, b.off = b.inline, 0
			b.next++
			continue
		}
		if b.buf == nil {
			b.buf, b.pooled = getChunk(), true
		}
		var err error
		if b.buf, err = b.decodeNext(b.buf[:0]); err != nil {
			return 0, err
		}
		b.off = 0
	}
	n := copy(p, b.buf[b.off:])
	b.off += n
	return n, nil
}

// decodeNext appends the raw bytes of the next chunk to dst, reading the
// stored value in place (no copy) and checking its size against the table.
func (b *bodyReader) decodeNext(dst []byte) ([]byte, error) {
	if err := b.ctx.Err(); err != nil {
		return dst, err
	}
	i := b.next
	if b.inline != nil {
		b.next++
		return append(dst, b.inline...), nil
	}
	v, closer, err := b.s.db.Get(chunkKey(b.body, uint32(i)))
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, fmt.Errorf("archive: read %s: chunk %d missing: %w", b.id, i, memex.ErrCorrupt)
	}
	if err != nil {
		return dst, fmt.Errorf("archive: read %s: %w", b.id, dbErr(err))
	}
	// The decoder's memory limit counts what dst already holds, so a chunk
	// decodes on its own (into a pooled buffer when dst is not empty).
	out := dst
	if len(dst) > 0 {
		out = getChunk()[:0]
		defer putChunk(out[:ChunkSize])
	}
	out, err = decodeChunk(out, v)
	closer.Close()
	if err != nil {
		return dst, fmt.Errorf("archive: read %s: chunk %d: %w", b.id, i, err)
	}
	if len(out) != int(b.t.sizes[i]) {
		return dst, fmt.Errorf("archive: read %s: chunk %d has %d bytes, table says %d: %w",
			b.id, i, len(out), b.t.sizes[i], memex.ErrCorrupt)
	}
	b.next++
	if len(dst) > 0 {
		return append(dst, out...), nil
	}
	return out, nil
}

func (b *bodyReader) Close() error {
	if b.pooled {
		putChunk(b.buf[:ChunkSize])
	}
	b.buf, b.pooled = nil, false
	return nil
}

// lineReader skips skip newlines, then passes want lines (want < 0: all).
type lineReader struct {
	r    *bodyReader
	skip int64
	want int64
	done bool
}

func (l *lineReader) Read(p []byte) (int, error) {
	for !l.done {
		n, err := l.r.Read(p)
		chunk := p[:n]
		for l.skip > 0 && len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				chunk = nil
				break
			}
			chunk = chunk[i+1:]
			l.skip--
		}
		if l.skip == 0 && l.want >= 0 {
			end := 0
			for end < len(chunk) && l.want > 0 {
				i := bytes.IndexByte(chunk[end:], '\n')
				if i < 0 {
					end = len(chunk)
					break
				}
				end += i + 1
				l.want--
			}
			chunk = chunk[:end]
			if l.want == 0 {
				l.done = true
			}
		}
		if len(chunk) > 0 || err != nil {
			m := copy(p, chunk) // chunk is a suffix window of p: copy moves it down
			if err == io.EOF {
				l.done = true
				if m > 0 {
					return m, nil
				}
			}
			return m, err
		}
	}
	return 0, io.EOF
}

func (l *lineReader) Close() error { return l.r.Close() }

// Session calls fn with the entries of the session ref names, in ID
// (time) order. A session is a name, a project and an agent (see
// memex.SessionRef); entries of the name that carry no project join the
// one session of that name that has a project. A ref that names several
// sessions (a name shared by two projects or two agents, with Project or
// Agent left empty) is memex.ErrAmbiguous, listing them; one that names
// none is memex.ErrNotFound.
func (s *Store) Session(ctx context.Context, ref memex.SessionRef, fn func(memex.Entry) error) error {
	return s.SessionWith(ctx, ref, nil, fn)
}

// SessionWith is Session, with the entries that have (when not nil)
// returns taken from it instead of read from their records: the caller
// holds them as Add returned them, as an import does for the sessions it
// distils. Which entries the session holds, and their order, is read from
// the store either way.
func (s *Store) SessionWith(ctx context.Context, ref memex.SessionRef, have func(memex.ID) (memex.Entry, bool), fn func(memex.Entry) error) error {
	ids, err := s.sessionEntries(ctx, ref)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		if have != nil {
			if e, ok := have(id); ok {
				if err := fn(e); err != nil {
					return err
				}
				continue
			}
		}
		r, err := s.getRecord(id)
		if err != nil {
			return fmt.Errorf("archive: session %s: entry %s: %w", quoted(ref), id, err)
		}
		if err := fn(r.Entry); err != nil {
			return err
		}
	}
	return nil
}

// sessionEntries returns the IDs of the entries of the session ref names,
// in order (see Session).
func (s *Store) sessionEntries(ctx context.Context, ref memex.SessionRef) ([]memex.ID, error) {
	found := map[memex.SessionRef][]memex.ID{}
	p := nameKey(prefixSession, ref.Session)
	err := s.scanPrefix(ctx, p, func(k, _ []byte) error {
		full, id, ok, err := s.sessionOf(ref.Session, k[len(p):])
		if err != nil || !ok || (ref.Agent != "" && full.Agent != ref.Agent) ||
			(ref.Project != "" && full.Project != "" && full.Project != ref.Project) {
			return err
		}
		found[full] = append(found[full], id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive: session %s: %w", quoted(ref), err)
	}
	var scoped, unscoped []memex.SessionRef
	for r := range found {
		if r.Project != "" {
			scoped = append(scoped, r)
		} else {
			unscoped = append(unscoped, r)
		}
	}
	var pick []memex.SessionRef
	switch {
	case len(scoped) > 1:
		return nil, ambiguousSession(ref, scoped)
	case len(scoped) == 1:
		pick = append(scoped, unscoped...)
	case len(unscoped) > 1:
		return nil, ambiguousSession(ref, unscoped)
	case len(unscoped) == 0:
		return nil, fmt.Errorf("archive: %w", memex.Errorf(memex.ErrNotFound, "session %s: not found", quoted(ref)).WithHint("memex sessions lists them"))
	default:
		pick = unscoped
	}
	var ids []memex.ID
	for _, r := range pick {
		ids = append(ids, found[r]...)
	}
	slices.SortFunc(ids, memex.ID.Compare)
	return ids, nil
}

// quoted names a ref in an error: the name quoted, then what narrowed it.
func quoted(ref memex.SessionRef) string {
	return memex.SessionRef{Session: strconv.Quote(ref.Session), Project: ref.Project, Agent: ref.Agent}.String()
}

// ambiguousSession is the error of a ref that names several sessions.
func ambiguousSession(ref memex.SessionRef, refs []memex.SessionRef) error {
	slices.SortFunc(refs, compareRefs)
	names := make([]string, len(refs))
	projects, agents := map[string]bool{}, map[string]bool{}
	for i, r := range refs {
		names[i] = fmt.Sprintf("%s (agent %s, %s)", r.Session, cmp.Or(r.Agent, "none"), projectName(r.Project))
		projects[r.Project], agents[r.Agent] = true, true
	}
	var by []string
	if len(projects) > 1 {
		by = append(by, "the project (--project)")
	}
	if len(agents) > 1 {
		by = append(by, "the agent (--agent)")
	}
	return fmt.Errorf("archive: %w", memex.Errorf(memex.ErrAmbiguous, "session %q names %d sessions: %s",
		ref.Session, len(refs), strings.Join(names, ", ")).WithHint("narrow it with "+strings.Join(by, " or ")))
}

func compareRefs(a, b memex.SessionRef) int {
	return cmp.Or(strings.Compare(a.Session, b.Session), strings.Compare(a.Project, b.Project), strings.Compare(a.Agent, b.Agent))
}

// sessionOf parses what follows the name in a session key: the full
// identity of the session and the entry's ID. A version 2 key has no
// project or agent in it: the entry's record says (ok is false when the
// record is gone).
func (s *Store) sessionOf(name string, rest []byte) (memex.SessionRef, memex.ID, bool, error) {
	scope, id, v2, ok := parseScope(rest, 2)
	if !ok {
		return memex.SessionRef{}, id, false, nil
	}
	if !v2 {
		return memex.SessionRef{Session: name, Project: scope[0], Agent: scope[1]}, id, true, nil
	}
	r, err := s.getRecord(id)
	if errors.Is(err, memex.ErrNotFound) {
		return memex.SessionRef{}, id, false, nil
	}
	if err != nil {
		return memex.SessionRef{}, id, false, err
	}
	return memex.SessionRef{Session: name, Project: r.Project, Agent: r.Agent}, id, true, nil
}

// Scan calls fn with every entry whose ID time lies in [from, to), in ID
// order. A zero from or to leaves that side open.
func (s *Store) Scan(ctx context.Context, from, to time.Time, fn func(memex.Entry) error) error {
	lo := []byte{prefixMeta}
	hi := []byte{prefixMeta + 1}
	if !from.IsZero() {
		lo = idKey(prefixMeta, memex.IDFloor(from))
	}
	if !to.IsZero() {
		hi = idKey(prefixMeta, memex.IDFloor(to))
	}
	return s.scanRange(ctx, lo, hi, func(k, v []byte) error {
		r, err := decodeRecord(trailingID(k), v)
		if err != nil {
			return fmt.Errorf("archive: scan: entry %s: %w", trailingID(k), err)
		}
		return fn(r.Entry)
	})
}

// SessionInfo sums up one session. First and Last are the IDs of its
// oldest and newest entries: an ID's time is its entry's creation time, so
// they bound the session in time without reading an entry.
type SessionInfo struct {
	memex.SessionRef
	Entries     int
	First, Last memex.ID
}

// Sessions lists every session (one per name, project and agent) with its
// entry count and first and last IDs, sorted by name, then project, then
// agent. It reads the session keys, not the entries (but for sessions
// written by a version 2 store, whose keys do not say their project and
// agent).
func (s *Store) Sessions(ctx context.Context) ([]SessionInfo, error) {
	by := map[memex.SessionRef]*SessionInfo{}
	err := s.scanPrefix(ctx, []byte{prefixSession}, func(k, _ []byte) error {
		name, rest, ok := keyName(k)
		if !ok {
			return nil
		}
		full, id, ok, err := s.sessionOf(name, rest)
		if !ok {
			return err
		}
		si := by[full]
		if si == nil {
			si = &SessionInfo{SessionRef: full, First: id, Last: id}
			by[full] = si
		}
		si.Entries++
		if id.Compare(si.First) < 0 {
			si.First = id
		}
		if id.Compare(si.Last) > 0 {
			si.Last = id
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("archive: sessions: %w", err)
	}
	out := make([]SessionInfo, 0, len(by))
	for _, si := range by {
		out = append(out, *si)
	}
	slices.SortFunc(out, func(a, b SessionInfo) int { return compareRefs(a.SessionRef, b.SessionRef) })
	return out, nil
}
