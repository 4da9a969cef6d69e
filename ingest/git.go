package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// Repository history is read by running git itself, not a Go
// implementation of it: on the histories measured (docs/memory.md) `git
// log -p` produced every patch 3 to 6 times faster than go-git's
// Commit.Patch, with a quarter of the memory, and it honours every
// repository layout git does (worktrees, alternates, partial clones,
// packed refs). A checkout worth reading has git installed.

// DefaultMaxPatch is the default of Options.MaxPatch.
const DefaultMaxPatch = 1 << 20

// gitBatch is how many commits are read before they are stored.
const gitBatch = 256

// GitState is the progress kept per repository under GitStateKey: the
// tips (HEAD, branches and tags) read completely by the last run, so that
// the next one reads only the commits not reachable from them.
type GitState struct {
	V       int      `json:"v"`
	Project string   `json:"project"`
	Tips    []string `json:"tips"`
}

// GitStateKey is the sink state key of a repository, by its git directory
// (shared by all worktrees of a repository).
func GitStateKey(gitDir string) string { return "ingest/git/" + gitDir }

// gitRepo is one repository to read.
type gitRepo struct {
	path    string // as given
	dir     string // where git runs: the worktree, or the git dir when bare
	gitDir  string // the common git directory, absolute
	project string
}

// runGit reads the history of every repository in opts.Paths ("." when
// none) as commit and tag entries.
func runGit(ctx context.Context, r *runner) error {
	paths := r.opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("ingest: git: the git program is needed to read a repository's history: %w", memex.ErrInvalid)
	}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		repo, err := openGitRepo(ctx, p, r.opts.Project)
		if err != nil {
			msg := fmt.Sprintf("%s: %v", p, err)
			r.rep.FileErrors = append(r.rep.FileErrors, msg)
			r.opts.warn(msg)
			continue
		}
		r.rep.Files++
		if err := r.gitHistory(ctx, repo); err != nil {
			if errors.Is(err, errSink) || ctx.Err() != nil {
				return err
			}
			msg := fmt.Sprintf("%s: %v", p, err)
			r.rep.FileErrors = append(r.rep.FileErrors, msg)
			r.opts.warn(msg)
		}
	}
	return nil
}

// openGitRepo finds the repository holding p and names its project as
// sessions working in it are named (DetectProject), unless project is set.
func openGitRepo(ctx context.Context, p, project string) (gitRepo, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return gitRepo{}, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return gitRepo{}, fmt.Errorf("no such repository: %w", err)
	} else if !fi.IsDir() {
		return gitRepo{}, fmt.Errorf("not a directory; give a repository's directory")
	}
	// --show-toplevel fails in a bare repository: it is asked for
	// separately, of a checkout only.
	out, err := gitOutput(ctx, abs, nil, "rev-parse", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return gitRepo{}, fmt.Errorf("not a git repository: %w", err)
	}
	f := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(f) < 3 {
		return gitRepo{}, fmt.Errorf("not a git repository (git rev-parse said %q)", out)
	}
	if f[0] != "true" {
		top, err := gitOutput(ctx, abs, nil, "rev-parse", "--show-toplevel")
		if err != nil {
			return gitRepo{}, fmt.Errorf("not a git repository: %w", err)
		}
		f = append(f, strings.TrimSpace(string(top)))
	}
	repo := gitRepo{path: p, dir: abs}
	common := f[2]
	if !filepath.IsAbs(common) {
		common = filepath.Join(abs, common)
	}
	repo.gitDir = filepath.Clean(common)
	bare := f[0] == "true"
	if !bare && len(f) > 3 && f[3] != "" {
		repo.dir = f[3]
	}
	repo.project = project
	if repo.project == "" {
		if bare {
			repo.project = repo.gitDir
			if u := originURL(repo.gitDir); u != "" {
				if n := NormalizeRemote(u); n != "" {
					repo.project = n
				}
			}
		} else {
			repo.project = DetectProject(repo.dir)
		}
	}
	return repo, nil
}

// gitOutput runs git in dir with a fixed, configuration-proof set of
// options and returns its standard output.
func gitOutput(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := gitCommand(ctx, dir, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], firstLineOf(msg))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	// The user's configuration must not change what is parsed: no colour,
	// no pager, no signatures, paths unquoted, no external diff drivers.
	full := append([]string{"-C", dir, "-c", "core.quotepath=off", "-c", "log.showSignature=false",
		"-c", "color.ui=never", "-c", "diff.noprefix=false", "-c", "diff.mnemonicprefix=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	return cmd
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// gitHistory reads the commits of repo not read by an earlier run, and
// its tags.
func (r *runner) gitHistory(ctx context.Context, repo gitRepo) error {
	key := GitStateKey(repo.gitDir)
	var prev GitState
	if !r.opts.Full {
		if b, err := r.sink.GetState(ctx, key); err == nil {
			if json.Unmarshal(b, &prev) != nil || prev.V != stateVersion || prev.Project != repo.project {
				prev = GitState{}
			}
		} else if !errors.Is(err, memex.ErrNotFound) {
			return fmt.Errorf("ingest: get state %s: %w: %w", repo.gitDir, err, errSink)
		}
	}
	tips, err := gitTips(ctx, repo.dir)
	if err != nil {
		return err
	}
	if len(tips) == 0 {
		return nil // a repository without a commit yet
	}
	// The revisions to walk: every tip, minus what the last run read.
	var revs bytes.Buffer
	for _, t := range tips {
		revs.WriteString(t + "\n")
	}
	for _, t := range prev.Tips {
		if gitValidHash(t) {
			revs.WriteString("^" + t + "\n")
		}
	}
	limits := []string{}
	if !r.opts.Since.IsZero() {
		limits = append(limits, "--since="+r.opts.Since.UTC().Format(time.RFC3339))
	}
	if r.opts.Max > 0 {
		limits = append(limits, "--max-count="+strconv.Itoa(r.opts.Max))
	}
	total := 0
	if out, err := gitOutput(ctx, repo.dir, revs.Bytes(), append([]string{"rev-list", "--count", "--stdin"}, limits...)...); err == nil {
		total, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	} else if len(prev.Tips) > 0 {
		// A tip of the last run is gone (history rewritten, a branch
		// deleted and collected): read everything again; keys dedupe.
		revs.Reset()
		for _, t := range tips {
			revs.WriteString(t + "\n")
		}
		out, err := gitOutput(ctx, repo.dir, revs.Bytes(), append([]string{"rev-list", "--count", "--stdin"}, limits...)...)
		if err != nil {
			return err
		}
		total, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	} else {
		return err
	}
	tags, err := gitTags(ctx, repo.dir)
	if err != nil {
		return err
	}
	prog := Progress{TotalCommits: total, File: repo.path}
	r.progress(prog)
	if total > 0 {
		if err := r.gitLog(ctx, repo, revs.Bytes(), limits, tags, &prog); err != nil {
			return err
		}
	}
	if err := r.gitTagEntries(ctx, repo, tags); err != nil {
		return err
	}
	if r.opts.Max > 0 && total >= r.opts.Max || !r.opts.Since.IsZero() {
		// Older commits were left out on purpose: the tips are not
		// read completely, so the next run walks them again (keys
		// keep what this run added from being added twice).
		return nil
	}
	b, _ := json.Marshal(GitState{V: stateVersion, Project: repo.project, Tips: tips})
	if err := r.sink.SetState(ctx, key, b); err != nil {
		return fmt.Errorf("ingest: set state %s: %w: %w", repo.gitDir, err, errSink)
	}
	return nil
}

func (r *runner) progress(p Progress) {
	if r.opts.Progress != nil {
		r.opts.Progress(p)
	}
}

func gitValidHash(s string) bool {
	if len(s) < 40 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// gitTips lists the commits HEAD, the branches and the tags point at.
func gitTips(ctx context.Context, dir string) ([]string, error) {
	out, err := gitOutput(ctx, dir, nil, "for-each-ref", "--format=%(objectname) %(*objectname)", "refs/heads", "refs/tags")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var tips []string
	add := func(h string) {
		if gitValidHash(h) && !seen[h] {
			seen[h] = true
			tips = append(tips, h)
		}
	}
	if head, err := gitOutput(ctx, dir, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
		add(strings.TrimSpace(string(head)))
	}
	for _, l := range strings.Split(string(out), "\n") {
		obj, peeled, _ := strings.Cut(l, " ")
		if peeled != "" {
			add(peeled) // an annotated tag: the commit it names
		} else {
			add(obj)
		}
	}
	// Tags may name trees or blobs; only commits are tips.
	if len(tips) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, t := range tips {
		in.WriteString(t + "\n")
	}
	types, err := gitOutput(ctx, dir, in.Bytes(), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	tips = tips[:0]
	for _, l := range strings.Split(string(types), "\n") {
		if h, typ, ok := strings.Cut(l, " "); ok && typ == "commit" {
			tips = append(tips, h)
		}
	}
	return tips, nil
}

// gitTag is one tag of the repository.
type gitTag struct {
	name, target       string // the tag's name and the commit it names
	annotated          bool
	tagger, taggerMail string
	date               time.Time
	message            string
}

// gitTags lists the tags that name commits, by target commit.
func gitTags(ctx context.Context, dir string) (map[string][]gitTag, error) {
	const fields = 8
	out, err := gitOutput(ctx, dir, nil, "for-each-ref",
		"--format=%(refname:short)%00%(objecttype)%00%(objectname)%00%(*objectname)%00%(taggername)%00%(taggeremail)%00%(creatordate:iso-strict)%00%(contents)%00",
		"refs/tags")
	if err != nil {
		return nil, err
	}
	parts := strings.Split(string(out), "\x00")
	tags := map[string][]gitTag{}
	for i := 0; i+fields <= len(parts); i += fields {
		f := parts[i : i+fields]
		t := gitTag{name: strings.TrimLeft(f[0], "\n"), annotated: f[1] == "tag", tagger: f[4],
			taggerMail: strings.Trim(f[5], "<>"), message: strings.TrimSpace(f[7])}
		t.target = f[2]
		if t.annotated {
			t.target = f[3]
		}
		t.date, _ = time.Parse(time.RFC3339, f[6])
		if gitValidHash(t.target) {
			tags[t.target] = append(tags[t.target], t)
		}
	}
	return tags, nil
}

// gitLogFormat heads every commit of the log with its facts, one per
// line, the raw message last, between NUL bytes; git follows it with the
// numstat lines and the patch.
const gitLogFormat = "%x00commit %H%n%h%n%P%n%an%n%ae%n%aI%n%cn%n%cI%n%B%x00"

// gitLog reads the commits of revs (oldest first) and stores them.
func (r *runner) gitLog(ctx context.Context, repo gitRepo, revs []byte, limits []string, tags map[string][]gitTag, prog *Progress) error {
	args := append([]string{"log", "--stdin", "--reverse", "--topo-order", "--cc", "--numstat", "-p",
		"--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--format=" + gitLogFormat}, limits...)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(cctx, repo.dir, args...)
	cmd.Stdin = bytes.NewReader(revs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	src := &source{path: repo.path, format: Git, opts: r.opts, rep: r.rep}
	flush := func() error {
		err := r.storeSource(ctx, src)
		src.records = src.records[:0]
		return err
	}
	br := bufio.NewReaderSize(stdout, 256<<10)
	max := r.opts.MaxPatch
	if max == 0 {
		max = DefaultMaxPatch
	}
	var perr error
	// The stream is: "" NUL header NUL diff NUL header NUL diff ... The
	// first read is the empty text before the first header.
	if _, _, err := readUntilNUL(br, 0); err != nil && err != io.EOF {
		perr = err
	}
	for perr == nil {
		head, _, err := readUntilNUL(br, 1<<20)
		if err == io.EOF && len(head) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			perr = err
			break
		}
		diff, size, derr := readUntilNUL(br, max)
		if derr != nil && derr != io.EOF {
			perr = derr
			break
		}
		c, ok := parseGitHeader(head)
		if !ok {
			src.skip(0, "malformed git log record", nil)
			continue
		}
		src.emit(gitCommitRecord(repo, c, diff, size, max, tags[c.hash]))
		r.rep.Commits++
		prog.Commits++
		r.rep.Bytes += int64(len(head)) + size
		if len(src.records) >= gitBatch {
			if err := flush(); err != nil {
				perr = err
				break
			}
			r.progress(*prog)
		}
		if derr == io.EOF {
			break
		}
	}
	if perr != nil {
		cancel()
		_ = cmd.Wait()
		return perr
	}
	if err := flush(); err != nil {
		cancel()
		_ = cmd.Wait()
		return err
	}
	r.progress(*prog)
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("ingest: %w", ctx.Err())
		}
		return fmt.Errorf("git log: %s", firstLineOf(strings.TrimSpace(stderr.String())+" ("+err.Error()+")"))
	}
	return nil
}

// readUntilNUL reads up to the next NUL byte (consumed, not returned) or
// the end of the stream, keeping at most keep bytes (0: none) and
// returning how many it read in all.
func readUntilNUL(br *bufio.Reader, keep int) ([]byte, int64, error) {
	var out []byte
	var n int64
	for {
		chunk, err := br.ReadSlice(0)
		part := chunk
		if err == nil {
			part = chunk[:len(chunk)-1]
		}
		n += int64(len(part))
		if room := keep - len(out); room > 0 {
			out = append(out, part[:min(room, len(part))]...)
		}
		switch err {
		case nil:
			return out, n, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return out, n, err
		}
	}
}

// gitCommit is the header of one commit in the log.
type gitCommit struct {
	hash, short        string
	parents            []string
	author, authorMail string
	authorDate         time.Time
	committer          string
	commitDate         time.Time
	message            string
}

func parseGitHeader(h []byte) (gitCommit, bool) {
	s, ok := strings.CutPrefix(string(h), "commit ")
	if !ok {
		return gitCommit{}, false
	}
	f := strings.SplitN(s, "\n", 9)
	if len(f) < 9 || !gitValidHash(f[0]) {
		return gitCommit{}, false
	}
	c := gitCommit{hash: f[0], short: f[1], parents: strings.Fields(f[2]), author: f[3], authorMail: f[4],
		committer: f[6], message: strings.TrimRight(f[8], "\n")}
	c.authorDate, _ = time.Parse(time.RFC3339, f[5])
	c.commitDate, _ = time.Parse(time.RFC3339, f[7])
	if c.commitDate.IsZero() {
		c.commitDate = c.authorDate
	}
	return c, true
}

// fileStat is one numstat line: lines added and deleted in a file ("-"
// for a binary file: -1).
type fileStat struct {
	path     string
	add, del int
	binary   bool
}

// splitDiff separates git's numstat lines from the patch that follows.
func splitDiff(diff []byte) ([]fileStat, []byte) {
	diff = bytes.TrimLeft(diff, "\n")
	var stats []fileStat
	for len(diff) > 0 {
		line, rest, _ := bytes.Cut(diff, []byte("\n"))
		if len(line) == 0 {
			diff = rest
			break
		}
		f := strings.SplitN(string(line), "\t", 3)
		if len(f) != 3 {
			break // the patch starts
		}
		st := fileStat{path: renamedPath(f[2])}
		if f[0] == "-" && f[1] == "-" {
			st.binary = true
		} else {
			a, err1 := strconv.Atoi(f[0])
			d, err2 := strconv.Atoi(f[1])
			if err1 != nil || err2 != nil {
				break
			}
			st.add, st.del = a, d
		}
		stats = append(stats, st)
		diff = rest
	}
	return stats, bytes.TrimLeft(diff, "\n")
}

// renamedPath is the new path of a numstat rename ("a/{b => c}/d",
// "old => new"), else p.
func renamedPath(p string) string {
	if i := strings.Index(p, "{"); i >= 0 {
		if j := strings.Index(p[i:], "}"); j > 0 {
			inner := p[i+1 : i+j]
			if _, to, ok := strings.Cut(inner, " => "); ok {
				return filepath.ToSlash(filepath.Clean(p[:i] + to + p[i+j+1:]))
			}
		}
	}
	if _, to, ok := strings.Cut(p, " => "); ok {
		return to
	}
	return p
}

// gitCommitRecord renders one commit as an entry: its body reads like
// `git show --numstat`, with the patch cut at max bytes.
func gitCommitRecord(repo gitRepo, c gitCommit, diff []byte, size int64, max int, tags []gitTag) Record {
	stats, patch := splitDiff(diff)
	var b strings.Builder
	b.WriteString("commit " + c.hash + "\n")
	if len(c.parents) > 1 {
		short := make([]string, len(c.parents))
		for i, p := range c.parents {
			short[i] = p[:min(len(p), len(c.short))]
		}
		b.WriteString("Merge: " + strings.Join(short, " ") + "\n")
	}
	if len(tags) > 0 {
		names := make([]string, len(tags))
		for i, t := range tags {
			names[i] = t.name
		}
		b.WriteString("Tags: " + strings.Join(names, ", ") + "\n")
	}
	b.WriteString("Author: " + c.author + " <" + c.authorMail + ">\n")
	b.WriteString("Date:   " + c.authorDate.Format(time.RFC3339) + "\n\n")
	for _, l := range strings.Split(c.message, "\n") {
		if l == "" {
			b.WriteString("\n")
		} else {
			b.WriteString("    " + l + "\n")
		}
	}
	add, del := 0, 0
	if len(stats) > 0 {
		b.WriteString("\n")
		for _, st := range stats {
			if st.binary {
				b.WriteString("bin\t" + st.path + "\n")
				continue
			}
			add += st.add
			del += st.del
			fmt.Fprintf(&b, "+%d -%d\t%s\n", st.add, st.del, st.path)
		}
		fmt.Fprintf(&b, "%s changed, +%d -%d", plural(len(stats), "file"), add, del)
		if len(c.parents) > 1 {
			b.WriteString(" (against the first parent)")
		}
		b.WriteString("\n")
	}
	if len(patch) > 0 {
		b.WriteString("\n")
		b.Write(patch)
		if patch[len(patch)-1] != '\n' {
			b.WriteString("\n")
		}
		if size > int64(max) {
			fmt.Fprintf(&b, "[memex: patch cut at %d of %d bytes; the whole patch: git show %s]\n", max, size, c.hash)
		}
	}
	e := memex.Entry{
		Project: repo.project, Session: "git:" + repo.project, Agent: "git", Kind: memex.KindCommit, Tool: "git",
		Created: c.commitDate,
		Summary: commitSummary(c, stats, add, del),
		Aliases: []string{c.hash, c.short},
		Attrs: map[string]string{
			"commit": c.hash, "author": c.author, "author_email": c.authorMail,
			"author_date": c.authorDate.Format(time.RFC3339), "committer": c.committer,
			"repo": repo.dir,
		},
	}
	if len(c.parents) > 0 {
		e.Attrs["parents"] = strings.Join(c.parents, " ")
	}
	if len(c.parents) > 1 {
		e.Attrs["merge"] = "true"
	}
	if len(tags) > 0 {
		names := make([]string, len(tags))
		for i, t := range tags {
			names[i] = t.name
		}
		e.Attrs["tags"] = strings.Join(names, " ")
	}
	if len(stats) > 0 {
		paths := make([]string, len(stats))
		for i, st := range stats {
			paths[i] = st.path
		}
		e.Attrs["files"] = strings.Join(paths, "\n")
	}
	if size > int64(max) {
		e.Attrs["patch_bytes"] = strconv.FormatInt(size, 10)
	}
	return Record{Entry: e, Body: []byte(b.String()), Key: "git:" + c.hash}
}

// commitSummary is "commit SHORT · author · date · subject · N files +A
// -D: path +a -d, ...", the file list cut to keep the line short.
func commitSummary(c gitCommit, stats []fileStat, add, del int) string {
	subject, _, _ := strings.Cut(c.message, "\n")
	subject = strings.TrimSpace(subject)
	if len(subject) > 100 {
		subject = cutRunes(subject, 97) + "..."
	}
	kind := "commit "
	if len(c.parents) > 1 {
		kind = "merge "
	}
	s := kind + c.short + " · " + c.author + " · " + c.authorDate.Format("2006-01-02") + " · " + subject
	if len(stats) == 0 {
		return s
	}
	s += fmt.Sprintf(" · %s +%d -%d:", plural(len(stats), "file"), add, del)
	const limit = 240
	for i, st := range stats {
		part := " " + st.path
		if !st.binary {
			part += fmt.Sprintf(" +%d -%d", st.add, st.del)
		}
		if i > 0 {
			part = "," + part
		}
		if len(s)+len(part) > limit && i > 0 {
			return s + fmt.Sprintf(", %d more", len(stats)-i)
		}
		s += part
	}
	return s
}

func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// gitTagEntries archives every tag as an entry of kind tag, once per name
// and target (a tag moved to another commit is archived again).
func (r *runner) gitTagEntries(ctx context.Context, repo gitRepo, tags map[string][]gitTag) error {
	src := &source{path: repo.path, format: Git, opts: r.opts, rep: r.rep}
	for target, ts := range tags {
		for _, t := range ts {
			var b strings.Builder
			b.WriteString("tag " + t.name + "\ncommit " + target + "\n")
			if t.annotated {
				b.WriteString("Tagger: " + t.tagger + " <" + t.taggerMail + ">\n")
			}
			if !t.date.IsZero() {
				b.WriteString("Date:   " + t.date.Format(time.RFC3339) + "\n")
			}
			if t.message != "" && t.annotated {
				b.WriteString("\n" + t.message + "\n")
			}
			sum := "tag " + t.name + " → " + target[:min(12, len(target))]
			if first, _, _ := strings.Cut(t.message, "\n"); t.annotated && first != "" {
				sum += " · " + cutRunes(first, 120)
			}
			e := memex.Entry{
				Project: repo.project, Session: "git:" + repo.project, Agent: "git", Kind: memex.KindTag, Tool: "git",
				Created: t.date, Summary: sum, Aliases: []string{t.name},
				Attrs: map[string]string{"tag": t.name, "commit": target, "repo": repo.dir},
			}
			src.emit(Record{Entry: e, Body: []byte(b.String()), Key: "git:tag:" + t.name + ":" + target})
		}
	}
	return r.storeSource(ctx, src)
}
