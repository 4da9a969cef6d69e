package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/memory"
)

// The measures of experience memory (docs/experience.md): procedures
// learned from the earlier sessions of a project, checked against the
// test command each later session ran successfully; lessons counted,
// matched to the failures that recur in later sessions, and sampled for
// a hand check.

// Scanner reads every entry of an archive in ID order (archive.Store).
type Scanner interface {
	Scan(ctx context.Context, from, to time.Time, fn func(memex.Entry) error) error
}

// ExperienceOptions configure Experience; the zero value measures every
// project with 4 sessions or more, under memory.DefaultRule, and samples
// 20 lessons with seed 1.
type ExperienceOptions struct {
	// MinSessions: projects with fewer sessions are not measured for
	// procedures. MinEarlier: a session is scored when that many sessions
	// came before it.
	MinSessions, MinEarlier int
	Rule                    memory.Rule
	Sample                  int
	Seed                    uint64
	// Project, when set, measures that project alone.
	Project string
}

// Hits counts top-1 and top-3 matches over Scored sessions.
type Hits struct {
	Top1 int `json:"top1"`
	Top3 int `json:"top3"`
}

// ProjectProcedures is the procedure measure of one project.
type ProjectProcedures struct {
	Project  string `json:"project"`
	Sessions int    `json:"sessions"`
	// Scored sessions had a passing test run and enough sessions before
	// them; NoTarget had none; Covered had a consolidated test procedure
	// learned before them.
	Scored   int `json:"scored"`
	NoTarget int `json:"no_target"`
	Covered  int `json:"covered"`
	// The procedure at the invocation and form levels, and the
	// frequency baselines.
	Invocation      Hits `json:"invocation"`
	Form            Hits `json:"form"`
	FrequentCommand Hits `json:"frequent_command"`
	FrequentInvoc   Hits `json:"frequent_invocation"`
	FrequentForm    Hits `json:"frequent_form"`
}

// LessonMeasures are the lesson measures over every session.
type LessonMeasures struct {
	Sessions int            `json:"sessions"`
	Lessons  int            `json:"lessons"`
	ByStatus map[string]int `json:"by_status"`
	Per100   float64        `json:"per_100_sessions"`
	// Strict and Loose count the lessons of later sessions whose first
	// failure matches a lesson of an earlier session of the project.
	Strict int `json:"recur_strict"`
	Loose  int `json:"recur_loose"`
	// FixComparable: recurrences (loose) whose earlier lesson names fix
	// files and whose later failure was fixed by editing files; FixHits:
	// those sharing a file.
	FixComparable int `json:"fix_comparable"`
	FixHits       int `json:"fix_hits"`
	// InsteadComparable: recurrences (loose) of a lesson whose command
	// never passed but another of its family did; InsteadHits: the later
	// session ran that invocation successfully after its failure.
	InsteadComparable int `json:"instead_comparable"`
	InsteadHits       int `json:"instead_hits"`
	// Recurrences lists the loose recurrences.
	Recurrences []Recurrence `json:"recurrences,omitempty"`
}

// Recurrence is a failure of a later session that a lesson of an earlier
// one foretold.
type Recurrence struct {
	Project  string `json:"project"`
	Earlier  string `json:"earlier"`
	Later    string `json:"later"`
	Strict   bool   `json:"strict"`
	Command  string `json:"command"`
	Error    string `json:"error"`
	Lesson   string `json:"lesson"`
	Outcome  string `json:"outcome"` // the later lesson's text
	FixHit   *bool  `json:"fix_hit,omitempty"`
	InstHit  *bool  `json:"instead_hit,omitempty"`
	LaterFix string `json:"later_fix,omitempty"`
}

// SampledLesson is a lesson drawn for the hand check, with the summary
// lines of the entries it cites.
type SampledLesson struct {
	Project  string   `json:"project"`
	Session  string   `json:"session"`
	Status   string   `json:"status"`
	Text     string   `json:"text"`
	Evidence []string `json:"evidence"`
}

// ExperienceReport is what Experience measured.
type ExperienceReport struct {
	Rule       memory.Rule         `json:"rule"`
	Procedures []ProjectProcedures `json:"procedures"`
	Total      ProjectProcedures   `json:"total"`
	Lessons    LessonMeasures      `json:"lessons"`
	Sample     []SampledLesson     `json:"sample"`
}

type evalSession struct {
	project, name string
	first         time.Time
	entries       []memex.Entry
}

// Experience measures procedures and lessons on the sessions of s.
func Experience(ctx context.Context, s Scanner, opts ExperienceOptions) (ExperienceReport, error) {
	if opts.MinSessions <= 0 {
		opts.MinSessions = 4
	}
	if opts.MinEarlier <= 0 {
		opts.MinEarlier = 3
	}
	if opts.Rule.MinPasses <= 0 {
		opts.Rule = memory.DefaultRule
	}
	if opts.Sample == 0 {
		opts.Sample = 20
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	by := map[memex.SessionRef]*evalSession{}
	var all []*evalSession
	err := s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		if e.Session == "" || e.Project == "" || e.Kind == memory.KindLesson || opts.Project != "" && e.Project != opts.Project {
			return nil
		}
		ref := e.SessionRef()
		es := by[ref]
		if es == nil {
			es = &evalSession{project: e.Project, name: e.Session, first: e.Created}
			by[ref] = es
			all = append(all, es)
		}
		es.entries = append(es.entries, e)
		return nil
	})
	if err != nil {
		return ExperienceReport{}, fmt.Errorf("eval: experience: %w", err)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].first.Equal(all[j].first) {
			return all[i].first.Before(all[j].first)
		}
		return all[i].name < all[j].name
	})
	projects := map[string][]*evalSession{}
	var names []string
	for _, es := range all {
		if projects[es.project] == nil {
			names = append(names, es.project)
		}
		projects[es.project] = append(projects[es.project], es)
	}
	sort.Strings(names)
	rep := ExperienceReport{Rule: opts.Rule, Total: ProjectProcedures{Project: "all"}}
	for _, p := range names {
		sessions := projects[p]
		if len(sessions) < opts.MinSessions {
			continue
		}
		pp := measureProcedures(p, sessions, opts)
		rep.Procedures = append(rep.Procedures, pp)
		rep.Total.add(pp)
	}
	rep.Lessons, rep.Sample = measureLessons(names, projects, opts)
	return rep, nil
}

func (t *ProjectProcedures) add(p ProjectProcedures) {
	t.Sessions += p.Sessions
	t.Scored += p.Scored
	t.NoTarget += p.NoTarget
	t.Covered += p.Covered
	for _, h := range []struct{ dst, src *Hits }{{&t.Invocation, &p.Invocation}, {&t.Form, &p.Form},
		{&t.FrequentCommand, &p.FrequentCommand}, {&t.FrequentInvoc, &p.FrequentInvoc}, {&t.FrequentForm, &p.FrequentForm}} {
		h.dst.Top1 += h.src.Top1
		h.dst.Top3 += h.src.Top3
	}
}

func measureProcedures(project string, sessions []*evalSession, opts ExperienceOptions) ProjectProcedures {
	pp := ProjectProcedures{Project: project, Sessions: len(sessions)}
	var earlier []memory.Observation
	for i, es := range sessions {
		obs := memory.Observations(es.entries)
		if i >= opts.MinEarlier {
			target, ok := firstPassingTest(obs)
			if !ok {
				pp.NoTarget++
			} else {
				pp.Scored++
				scoreSession(&pp, earlier, target, opts.Rule)
			}
		}
		earlier = append(earlier, obs...)
	}
	return pp
}

func firstPassingTest(obs []memory.Observation) (memory.Observation, bool) {
	for _, o := range obs {
		if o.Pass && o.Family == memory.FamilyTest {
			return o, true
		}
	}
	return memory.Observation{}, false
}

func scoreSession(pp *ProjectProcedures, earlier []memory.Observation, target memory.Observation, rule memory.Rule) {
	tc, ti, tf := memory.RunKeys(target)
	var invocs, forms []string
	for _, p := range memory.BuildProcedures(earlier, rule) {
		if p.Family != memory.FamilyTest {
			continue
		}
		invocs = append(invocs, p.Invocation)
		forms = append(forms, p.Forms()...)
	}
	if len(invocs) > 0 {
		pp.Covered++
	}
	hit(&pp.Invocation, invocs, ti)
	hit(&pp.Form, forms, tf)
	var cmds, bi, bf []string
	for _, o := range earlier {
		if o.Family != memory.FamilyTest {
			continue
		}
		c, i, f := memory.RunKeys(o)
		cmds, bi, bf = append(cmds, c), append(bi, i), append(bf, f)
	}
	hit(&pp.FrequentCommand, frequent(cmds), tc)
	hit(&pp.FrequentInvoc, frequent(bi), ti)
	hit(&pp.FrequentForm, frequent(bf), tf)
}

func hit(h *Hits, ranked []string, want string) {
	for i, r := range ranked {
		if i >= 3 {
			break
		}
		if r == want {
			if i == 0 {
				h.Top1++
			}
			h.Top3++
			return
		}
	}
}

// frequent ranks values by count, ties by the latest seen.
func frequent(vs []string) []string {
	n := map[string]int{}
	last := map[string]int{}
	for i, v := range vs {
		n[v]++
		last[v] = i
	}
	out := make([]string, 0, len(n))
	for v := range n {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		if n[out[i]] != n[out[j]] {
			return n[out[i]] > n[out[j]]
		}
		return last[out[i]] > last[out[j]]
	})
	return out
}

type sessionLessons struct {
	es      *evalSession
	lessons []memory.Lesson
	obs     []memory.Observation
}

func measureLessons(names []string, projects map[string][]*evalSession, opts ExperienceOptions) (LessonMeasures, []SampledLesson) {
	m := LessonMeasures{ByStatus: map[string]int{}}
	var pool []SampledLesson
	for _, p := range names {
		var done []sessionLessons
		for _, es := range projects[p] {
			m.Sessions++
			sl := sessionLessons{es: es, lessons: memory.Lessons(es.entries), obs: memory.Observations(es.entries)}
			for _, l := range sl.lessons {
				m.Lessons++
				m.ByStatus[l.Status]++
				pool = append(pool, sample(es, l))
				if r, ok := recurrence(done, sl, l); ok {
					m.Recurrences = append(m.Recurrences, r)
					m.Loose++
					if r.Strict {
						m.Strict++
					}
					if r.FixHit != nil {
						m.FixComparable++
						if *r.FixHit {
							m.FixHits++
						}
					}
					if r.InstHit != nil {
						m.InsteadComparable++
						if *r.InstHit {
							m.InsteadHits++
						}
					}
				}
			}
			done = append(done, sl)
		}
	}
	if m.Sessions > 0 {
		m.Per100 = float64(m.Lessons) * 100 / float64(m.Sessions)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	if len(pool) > opts.Sample {
		pool = pool[:opts.Sample]
	}
	return m, pool
}

func sample(es *evalSession, l memory.Lesson) SampledLesson {
	byID := map[memex.ID]memex.Entry{}
	for _, e := range es.entries {
		byID[e.ID] = e
	}
	s := SampledLesson{Project: es.project, Session: es.name, Status: l.Status, Text: l.Text}
	for _, id := range l.Cites() {
		if e, ok := byID[id]; ok {
			s.Evidence = append(s.Evidence, id.String()+"  "+e.DisplaySummary())
		}
	}
	return s
}

// recurrence matches a later lesson's first failure with the lessons of
// the earlier sessions, the most recent first.
func recurrence(earlier []sessionLessons, later sessionLessons, l memory.Lesson) (Recurrence, bool) {
	inv := invocationOf(l.Command)
	for i := len(earlier) - 1; i >= 0; i-- {
		for _, old := range earlier[i].lessons {
			if old.Signature != l.Signature || invocationOf(old.Command) != inv {
				continue
			}
			r := Recurrence{Project: l.Project, Earlier: old.Session, Later: l.Session, Strict: old.Command == l.Command,
				Command: l.Command, Error: l.Error, Lesson: old.Text, Outcome: l.Text}
			if len(old.Fix) > 0 && l.Status == memory.StatusFixed && len(l.Fix) > 0 {
				h := shareFile(old.Fix, l.Fix)
				r.FixHit = &h
				var fs []string
				for _, f := range l.Fix {
					fs = append(fs, f.Path)
				}
				r.LaterFix = strings.Join(fs, ", ")
			}
			if old.Instead != nil {
				h := ranAfter(later.obs, l.Failures[0], invocationOf(old.Instead.Command))
				r.InstHit = &h
			}
			return r, true
		}
	}
	return Recurrence{}, false
}

func shareFile(a, b []memory.FileEdit) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Path == y.Path || path.Base(x.Path) == path.Base(y.Path) && (strings.HasSuffix(x.Path, "/"+y.Path) || strings.HasSuffix(y.Path, "/"+x.Path)) {
				return true
			}
		}
	}
	return false
}

// ranAfter reports a passing run of invocation inv after the entry from.
func ranAfter(obs []memory.Observation, from memex.ID, inv string) bool {
	for _, o := range obs {
		if o.Pass && o.ID.Compare(from) > 0 {
			if _, i, _ := memory.RunKeys(o); i == inv {
				return true
			}
		}
	}
	return false
}

func invocationOf(command string) string {
	c := memory.ParseCommand(command)
	if len(c.Words) == 0 {
		return ""
	}
	_, inv, _ := memory.RunKeys(memory.Observation{Words: c.Words})
	return inv
}
