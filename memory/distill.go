package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/memex-archive/memex"
)

// Lessons and procedures are kept in the archive, beside what they were
// distilled from, and brought up to date by Update after every write that
// adds to a session (an import, a hook):
//
//   - each lesson is an entry of kind lesson in its session (same project,
//     session and agent), created at the time of its last evidence, with
//     the lesson's line as its summary, the evidence listed in its
//     content, and as attributes its status, the IDs it cites and the
//     first failure it is about (its identity). Update rewrites a
//     session's lessons when what was mined from it changed, and leaves
//     them untouched otherwise: running it twice changes nothing;
//   - the runs procedures learn from are kept per project in the store's
//     state ("memory/runs/PROJECT"), by session; procedures are built
//     from them when read, so a session distilled again replaces its own
//     runs only;
//   - the lessons a failing command may be reminded of are kept per
//     project ("memory/hints/PROJECT"), by command and error signature.
//
// Forgetting entries (Forgotten) distils their sessions again, so that no
// lesson and no procedure cites an entry that is gone; a lesson forgotten
// itself is remembered as such ("memory/forgotten/PROJECT") and not made
// again.

// Writer is what distillation needs of the archive beside reading it
// (archive.Store satisfies it). GetState returns an error wrapping
// memex.ErrNotFound for a state never set.
type Writer interface {
	Store
	Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error)
	Delete(ctx context.Context, id memex.ID) error
	GetState(ctx context.Context, name string) ([]byte, error)
	SetState(ctx context.Context, name string, value []byte) error
}

// UpdateOptions configure Update.
type UpdateOptions struct {
	// Added, when set, is called with each lesson entry added and its
	// content (to index it at once, as ingest's Added).
	Added func(e memex.Entry, body []byte)
}

// UpdateReport says what Update did. Removed lists the lesson entries it
// deleted from the archive, for the caller to drop from the index (a
// search drops them anyway when it meets them).
type UpdateReport struct {
	Sessions int        `json:"sessions"`
	Lessons  int        `json:"lessons"` // lessons of those sessions now
	Added    int        `json:"added"`
	Kept     int        `json:"kept"`
	Removed  []memex.ID `json:"removed"` // [] when none was
	Runs     int        `json:"runs"`    // runs procedures learn from, in those sessions
}

// Merge adds o's counts and removals to r's: the report of two updates,
// one after the other (a session in both is counted in both).
func (r *UpdateReport) Merge(o UpdateReport) {
	r.Sessions += o.Sessions
	r.Lessons += o.Lessons
	r.Added += o.Added
	r.Kept += o.Kept
	r.Removed = append(r.Removed, o.Removed...)
	r.Runs += o.Runs
}

// updating serialises Update in the process that owns the store.
var updating sync.Mutex

// State names.
const (
	stateRuns      = "memory/runs/"
	stateHints     = "memory/hints/"
	stateForgotten = "memory/forgotten/"
)

// runsState is the runs of a project's sessions, by session.
type runsState struct {
	V        int                      `json:"v"`
	Sessions map[string][]Observation `json:"sessions"`
}

// hint is a lesson a failing command may be reminded of.
type hint struct {
	Key    string   `json:"k"` // hintHash of its command and signature
	ID     memex.ID `json:"id"`
	Status string   `json:"s"`
}

type hintsState struct {
	V        int               `json:"v"`
	Sessions map[string][]hint `json:"sessions"`
}

type forgottenState struct {
	V    int      `json:"v"`
	Keys []string `json:"keys"` // first-failure IDs of lessons forgotten
}

// sessionKey names a session in a project's state.
func sessionKey(ref memex.SessionRef) string { return ref.Agent + "\x00" + ref.Session }

// hintHash is the key of a hint.
func hintHash(command, sig string) string {
	h := sha256.Sum256([]byte(HintKey(command, sig)))
	return hex.EncodeToString(h[:12])
}

// Update distils the sessions refs names (each with its project; a ref
// without one is skipped): their lessons, the runs their procedures learn
// from, and the hints of their lessons. A session that no longer exists
// has its lessons and runs removed.
func Update(ctx context.Context, w Writer, refs []memex.SessionRef, opts UpdateOptions) (UpdateReport, error) {
	// A project's state is read, changed and written back: two updates at
	// once (a server's imports and hooks) would lose one's runs.
	updating.Lock()
	defer updating.Unlock()
	return update(ctx, w, refs, opts)
}

func update(ctx context.Context, w Writer, refs []memex.SessionRef, opts UpdateOptions) (UpdateReport, error) {
	var rep UpdateReport
	byProject := map[string][]memex.SessionRef{}
	var projects []string
	seen := map[memex.SessionRef]bool{}
	for _, r := range refs {
		if r.Project == "" || r.Session == "" || seen[r] {
			continue
		}
		seen[r] = true
		if byProject[r.Project] == nil {
			projects = append(projects, r.Project)
		}
		byProject[r.Project] = append(byProject[r.Project], r)
	}
	sort.Strings(projects)
	for _, p := range projects {
		if err := updateProject(ctx, w, p, byProject[p], opts, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func updateProject(ctx context.Context, w Writer, project string, refs []memex.SessionRef, opts UpdateOptions, rep *UpdateReport) error {
	var runs runsState
	var hints hintsState
	var forgotten forgottenState
	if err := getState(ctx, w, stateRuns+project, &runs); err != nil {
		return err
	}
	if err := getState(ctx, w, stateHints+project, &hints); err != nil {
		return err
	}
	if err := getState(ctx, w, stateForgotten+project, &forgotten); err != nil {
		return err
	}
	skip := map[string]bool{}
	for _, k := range forgotten.Keys {
		skip[k] = true
	}
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			return err
		}
		obs, hs, err := updateSession(ctx, w, ref, skip, opts, rep)
		if err != nil {
			return err
		}
		rep.Sessions++
		rep.Runs += len(obs)
		k := sessionKey(ref)
		if len(obs) > 0 {
			runs.Sessions[k] = obs
		} else {
			delete(runs.Sessions, k)
		}
		if len(hs) > 0 {
			hints.Sessions[k] = hs
		} else {
			delete(hints.Sessions, k)
		}
	}
	runs.V, hints.V = 1, 1
	if err := setState(ctx, w, stateRuns+project, runs); err != nil {
		return err
	}
	return setState(ctx, w, stateHints+project, hints)
}

// updateSession brings one session's lessons up to date and returns its
// runs and hints.
func updateSession(ctx context.Context, w Writer, ref memex.SessionRef, skip map[string]bool, opts UpdateOptions, rep *UpdateReport) ([]Observation, []hint, error) {
	var src []memex.Entry
	existing := map[string]memex.Entry{}
	var extra []memex.ID
	err := w.Session(ctx, ref, func(e memex.Entry) error {
		if e.Kind != KindLesson {
			src = append(src, e)
			return nil
		}
		if k := e.Attrs[attrLessonOf]; k != "" {
			if _, dup := existing[k]; dup {
				extra = append(extra, e.ID) // a crash between an add and a delete
			} else {
				existing[k] = e
			}
		}
		return nil
	})
	if errors.Is(err, memex.ErrNotFound) {
		err = nil // the session is gone: nothing to distil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("memory: distil %s: %w", ref, err)
	}
	byID := make(map[memex.ID]memex.Entry, len(src))
	for _, e := range src {
		byID[e.ID] = e
	}
	var hints []hint
	for _, l := range Lessons(src) {
		key := l.Key().String()
		if skip[key] {
			continue
		}
		rep.Lessons++
		e, body := lessonEntry(l, byID)
		if old, ok := existing[key]; ok {
			delete(existing, key)
			if old.Attrs[attrDigest] == e.Attrs[attrDigest] {
				rep.Kept++
				hints = append(hints, hint{Key: hintHash(l.Command, l.Signature), ID: old.ID, Status: l.Status})
				continue
			}
			extra = append(extra, old.ID)
		}
		// The new lesson is added before the old one is deleted: a crash
		// in between leaves both, and the next Update removes the old.
		added, err := w.Add(ctx, e, bytes.NewReader(body))
		if err != nil {
			return nil, nil, fmt.Errorf("memory: distil %s: add lesson: %w", ref, err)
		}
		rep.Added++
		if opts.Added != nil {
			opts.Added(added, body)
		}
		hints = append(hints, hint{Key: hintHash(l.Command, l.Signature), ID: added.ID, Status: l.Status})
	}
	for _, e := range existing {
		extra = append(extra, e.ID)
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].Compare(extra[j]) < 0 })
	for _, id := range extra {
		if err := w.Delete(ctx, id); err != nil && !errors.Is(err, memex.ErrNotFound) {
			return nil, nil, fmt.Errorf("memory: distil %s: remove lesson %s: %w", ref, id, err)
		}
		rep.Removed = append(rep.Removed, id)
	}
	return Observations(src), hints, nil
}

// lessonEntry is the entry that holds l, and its content: the lesson's
// line, then one line per entry it cites.
func lessonEntry(l Lesson, byID map[memex.ID]memex.Entry) (memex.Entry, []byte) {
	var b strings.Builder
	b.WriteString(l.Text + "\n\n")
	b.WriteString("command: " + l.Command + "\n")
	b.WriteString("status: " + l.Status + "\n")
	if l.Error != "" {
		b.WriteString("error: " + l.Error + "\n")
	}
	b.WriteString("\nevidence (memex show ID):\n")
	role := map[memex.ID]string{}
	for _, id := range l.Failures {
		role[id] = "failed"
	}
	for _, f := range l.Fix {
		role[f.ID] = "edited " + f.Path
	}
	for _, f := range l.Undone {
		role[*f.By] = "edited " + f.Path + " (undone)"
		role[f.ID] = "undid " + f.Path
	}
	if l.After != nil {
		role[l.After.ID] = "ran"
	}
	if l.Pass != nil {
		role[*l.Pass] = "passed"
	}
	if l.Instead != nil {
		role[l.Instead.ID] = "passed instead"
	}
	cites := l.Cites()
	var ids []string
	for _, id := range cites {
		ids = append(ids, id.String())
		line := id.String() + "  " + role[id]
		if e, ok := byID[id]; ok {
			line += " · " + strings.Join(strings.Fields(e.DisplaySummary()), " ")
		}
		b.WriteString(line + "\n")
	}
	body := []byte(b.String())
	var fix []string
	for _, f := range l.Fix {
		fix = append(fix, f.Path)
	}
	sum := sha256.Sum256(append(lessonJSON(l), body...))
	e := memex.Entry{Project: l.Project, Session: l.Session, Agent: l.Agent, Kind: KindLesson, Input: l.Command,
		Created: l.At, Summary: l.Text, Attrs: map[string]string{
			attrLessonOf: l.Key().String(),
			attrStatus:   l.Status,
			attrCites:    strings.Join(ids, ","),
			attrDigest:   hex.EncodeToString(sum[:12]),
		}}
	if l.Family != "" {
		e.Attrs[attrFamily] = l.Family
	}
	if len(fix) > 0 {
		e.Attrs[attrFix] = strings.Join(fix, ",")
	}
	return e, body
}

func getState(ctx context.Context, w Writer, name string, v any) error {
	b, err := w.GetState(ctx, name)
	if errors.Is(err, memex.ErrNotFound) {
		b, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("memory: read %s: %w", name, err)
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("memory: read %s: %w: %w", name, memex.ErrCorrupt, err)
		}
	}
	switch s := v.(type) {
	case *runsState:
		if s.Sessions == nil {
			s.Sessions = map[string][]Observation{}
		}
	case *hintsState:
		if s.Sessions == nil {
			s.Sessions = map[string][]hint{}
		}
	}
	return nil
}

func setState(ctx context.Context, w Writer, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if old, err := w.GetState(ctx, name); err == nil && bytes.Equal(old, b) {
		return nil // unchanged: no write
	}
	if err := w.SetState(ctx, name, b); err != nil {
		return fmt.Errorf("memory: write %s: %w", name, err)
	}
	return nil
}

// Forgettable is what Forgotten needs of an entry about to be forgotten:
// its ID, kind and session, and which lesson it is, none of its content
// (a forget that is interrupted keeps it until it is finished).
func Forgettable(e memex.Entry) memex.Entry {
	out := memex.Entry{ID: e.ID, Kind: e.Kind, Project: e.Project, Session: e.Session, Agent: e.Agent}
	if v := e.Attrs[attrLessonOf]; v != "" {
		out.Attrs = map[string]string{attrLessonOf: v}
	}
	return out
}

// Forgotten distils again the sessions of entries that were forgotten
// (their metadata, read before they were deleted), so that no lesson or
// procedure cites them; a lesson among them is recorded as forgotten and
// not made again. It returns the lesson entries it removed in turn.
func Forgotten(ctx context.Context, w Writer, gone []memex.Entry, opts UpdateOptions) (UpdateReport, error) {
	updating.Lock()
	defer updating.Unlock()
	var refs []memex.SessionRef
	lessons := map[string][]string{}
	for _, e := range gone {
		if e.Kind == KindLesson && e.Attrs[attrLessonOf] != "" && e.Project != "" {
			lessons[e.Project] = append(lessons[e.Project], e.Attrs[attrLessonOf])
		}
		if e.Session != "" && e.Project != "" {
			refs = append(refs, e.SessionRef())
		}
	}
	for p, keys := range lessons {
		var f forgottenState
		if err := getState(ctx, w, stateForgotten+p, &f); err != nil {
			return UpdateReport{}, err
		}
		f.V = 1
		f.Keys = append(f.Keys, keys...)
		sort.Strings(f.Keys)
		f.Keys = compactStrings(f.Keys)
		if err := setState(ctx, w, stateForgotten+p, f); err != nil {
			return UpdateReport{}, err
		}
	}
	return update(ctx, w, refs, opts)
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// StateReader reads the store's state (archive.Store satisfies it).
type StateReader interface {
	GetState(ctx context.Context, name string) ([]byte, error)
}

// ProjectRuns returns the runs kept for a project, in time order.
func ProjectRuns(ctx context.Context, s StateReader, project string) ([]Observation, int, error) {
	var st runsState
	b, err := s.GetState(ctx, stateRuns+project)
	if errors.Is(err, memex.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("memory: read runs of %s: %w", project, err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, 0, fmt.Errorf("memory: read runs of %s: %w: %w", project, memex.ErrCorrupt, err)
	}
	var out []Observation
	for _, obs := range st.Sessions {
		out = append(out, obs...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID.Compare(out[j].ID) < 0 })
	return out, len(st.Sessions), nil
}

// Hint returns the lesson a failing run of command with the error
// signature sig should be reminded of in project: the latest fixed
// lesson of that command and error, else the latest of any status;
// memex.ErrNotFound when there is none.
func Hint(ctx context.Context, s StateReader, project, command, sig string) (memex.ID, string, error) {
	var st hintsState
	b, err := s.GetState(ctx, stateHints+project)
	if err != nil {
		return memex.ID{}, "", err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return memex.ID{}, "", fmt.Errorf("memory: read hints of %s: %w: %w", project, memex.ErrCorrupt, err)
	}
	k := hintHash(command, sig)
	var best hint
	for _, hs := range st.Sessions {
		for _, h := range hs {
			if h.Key != k {
				continue
			}
			better := best.ID.IsZero() || (h.Status == StatusFixed) != (best.Status == StatusFixed) && h.Status == StatusFixed ||
				(h.Status == StatusFixed) == (best.Status == StatusFixed) && h.ID.Compare(best.ID) > 0
			if better {
				best = h
			}
		}
	}
	if best.ID.IsZero() {
		return memex.ID{}, "", fmt.Errorf("memory: no lesson for %q: %w", command, memex.ErrNotFound)
	}
	return best.ID, best.Status, nil
}
