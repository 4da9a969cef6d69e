package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/memex-archive/memex"
)

// maxDecompressed bounds a .jsonl.zst rollout once decompressed, so a
// corrupt or hostile file cannot exhaust memory.
const maxDecompressed = 4 << 30

func readFile(p string) ([]byte, error) {
	if !strings.HasSuffix(p, ".zst") {
		b, err := readRegular(p)
		if err != nil {
			return nil, fmt.Errorf("ingest: read: %w", err)
		}
		return b, nil
	}
	f, _, err := openRegular(p)
	if err != nil {
		return nil, fmt.Errorf("ingest: read: %w", err)
	}
	defer f.Close()
	return decompress(f)
}

// readResume reads the first min(headLen, resume) bytes of p and
// everything from resume on.
func readResume(p string, resume int64) (head, tail []byte, err error) {
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, nil, fmt.Errorf("ingest: read: %w", err)
	}
	defer f.Close()
	head = make([]byte, min(int64(headLen), resume))
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, nil, fmt.Errorf("ingest: read: %w", err)
	}
	if _, err := f.Seek(resume, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("ingest: read: %w", err)
	}
	tail, err = readAllLimited(f, nil, max(fi.Size()-resume, 0))
	if err != nil {
		return nil, nil, fmt.Errorf("ingest: read: %w", err)
	}
	return head, tail, nil
}

func decompress(r io.Reader) ([]byte, error) {
	d, err := zstd.NewReader(r, zstd.WithDecoderMaxMemory(maxDecompressed), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("ingest: zstd: %w", err)
	}
	defer d.Close()
	b, err := io.ReadAll(io.LimitReader(d, maxDecompressed))
	if err != nil {
		// A rollout being compressed may be cut short: keep what decoded.
		if len(b) > 0 {
			return b, nil
		}
		return nil, fmt.Errorf("ingest: zstd: %v: %w", err, memex.ErrCorrupt)
	}
	return b, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// DefaultPaths are the locations read when no path is given: Claude Code
// ~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects), Codex
// ~/.codex/sessions and ~/.codex/archived_sessions (or under $CODEX_HOME),
// Gemini CLI ~/.gemini/tmp (or under $GEMINI_CLI_HOME/.gemini), OpenCode ~/.local/share/opencode (or $XDG_DATA_HOME/opencode). Auto
// takes them all; the SWE formats and jsonl have none. home "" means the
// user's home directory; when home is given the environment is ignored,
// so tests see only what they set up.
func DefaultPaths(f Format, home string) []string {
	fromEnv := home == ""
	env := func(k string) string {
		if !fromEnv {
			return ""
		}
		return os.Getenv(k)
	}
	if fromEnv {
		home, _ = os.UserHomeDir()
	}
	var out []string
	if f == ClaudeCode || f == Auto {
		if d := env("CLAUDE_CONFIG_DIR"); d != "" {
			out = append(out, filepath.Join(d, "projects"))
		} else {
			out = append(out, filepath.Join(home, ".claude", "projects"))
		}
	}
	if f == Codex || f == Auto {
		d := CodexHome(env, home)
		out = append(out, filepath.Join(d, "sessions"), filepath.Join(d, "archived_sessions"))
	}
	if f == Gemini || f == Auto {
		out = append(out, filepath.Join(GeminiHome(env, home), "tmp"))
	}
	if f == OpenCode || f == Auto {
		d := env("XDG_DATA_HOME")
		if d == "" {
			d = filepath.Join(home, ".local", "share")
		}
		out = append(out, filepath.Join(d, "opencode"))
	}
	return out
}

// CodexHome is Codex's directory: $CODEX_HOME (read with getenv), else
// .codex under the user's home directory home. Everything in memex that
// looks for Codex's files (its rollouts, its configuration) starts here.
func CodexHome(getenv func(string) string, home string) string {
	if d := getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(home, ".codex")
}

// GeminiHome is Gemini CLI's directory: .gemini under $GEMINI_CLI_HOME
// (read with getenv), else under the user's home directory home. Gemini
// CLI reads GEMINI_CLI_HOME as a replacement of the home directory (its
// homedir() in packages/core/src/utils/paths.ts), so that its settings,
// credentials and sessions all move to $GEMINI_CLI_HOME/.gemini.
func GeminiHome(getenv func(string) string, home string) string {
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		home = d
	}
	return filepath.Join(home, ".gemini")
}

// discover expands paths into targets, in a stable order, with one
// problem line per path that yields nothing. named says the user gave the
// paths: then a missing path is a problem and so is a directory holding no
// file of the format. Default locations (named false) that do not exist or
// hold nothing yet are silently empty.
func discover(f Format, paths []string, named bool) ([]target, []string) {
	var out []target
	var errs []string
	seen := map[string]bool{}
	add := func(t target) {
		if !seen[t.path] {
			seen[t.path] = true
			out = append(out, t)
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil {
			if named || !os.IsNotExist(err) {
				errs = append(errs, fmt.Sprintf("%s: %v", p, err))
			}
			continue
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			errs = append(errs, fmt.Sprintf("%s: %v", p, errNotRegular))
			continue
		}
		if !fi.IsDir() {
			ff := f
			if ff == Auto {
				ff = sniff(abs)
			}
			if ff == "" {
				errs = append(errs, fmt.Sprintf("%s: format not recognised (auto reads claude-code, codex, opencode, gemini, mini-swe-agent, swe-agent and jsonl)", p))
				continue
			}
			if ff == OpenCode && !strings.HasSuffix(abs, ".db") {
				errs = append(errs, fmt.Sprintf("%s: an OpenCode path is a directory or a .db file", p))
				continue
			}
			t, err := statTarget(abs, ff)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", p, err))
				continue
			}
			add(t)
			continue
		}
		root := abs
		if li, err := os.Lstat(abs); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			// A link to a directory (~/.claude/projects kept on another
			// disk): WalkDir does not follow its root, but a root ending
			// in a separator is the directory itself, and the files
			// found keep the path as given.
			root = abs + string(filepath.Separator)
		}
		found, near := walk(f, root)
		if len(found) == 0 && named {
			errs = append(errs, p+": "+nothingFound(f, near))
		}
		for _, t := range found {
			add(t)
		}
	}
	return out, errs
}

// nothingFound says what a directory lacks for format f, after the name
// patterns of formatByName and the OpenCode layout of isOpenCodeDir. near
// counts the files walk passed over although their extension fits.
func nothingFound(f Format, near int) string {
	var msg string
	switch f {
	case ClaudeCode:
		msg = "no Claude Code transcripts (*.jsonl) found"
	case Codex:
		msg = "no codex rollout files (rollout-*.jsonl, rollout-*.jsonl.zst) found"
		if near > 0 {
			msg += fmt.Sprintf("; %s not named rollout-* (give a file's path to read it as codex anyway)", plural(near, ".jsonl file"))
		}
	case OpenCode:
		msg = "no OpenCode data (a directory holding opencode.db or storage/session) found"
	case Gemini:
		msg = "no Gemini CLI sessions (chats/session-*.json, chats/session-*.jsonl) found"
		if near > 0 {
			msg += fmt.Sprintf("; %s not named chats/session-* (give a file's path to read it as gemini anyway)", plural(near, ".json or .jsonl file"))
		}
	case MiniSWEAgent:
		msg = "no mini-swe-agent trajectories (*.traj.json) found"
	case SWEAgent:
		msg = "no SWE-agent trajectories (*.traj) found"
	case JSONL:
		msg = "no JSONL files (*.jsonl) found"
	default:
		msg = "no transcripts found (auto reads *.jsonl, *.jsonl.zst, *.traj, *.traj.json, Gemini CLI chats and OpenCode data directories)"
		if near > 0 {
			msg += fmt.Sprintf("; %s of no known format", plural(near, "file"))
		}
	}
	return msg
}

// plural renders n and noun, with an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// walk lists the files of format f (or of any format, for Auto) under dir.
// near counts the files passed over although their extension is one f
// reads: Codex files not named rollout-*, Gemini .json and .jsonl files
// not named as Gemini CLI names its sessions, Auto files of no known
// format.
func walk(f Format, dir string) (out []target, near int) {
	plain := map[string]bool{}
	var zst []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable subtrees are skipped, not fatal
		}
		name := d.Name()
		if d.IsDir() {
			if name == "tool-results" || name == "node_modules" || name == ".git" {
				return fs.SkipDir
			}
			// An OpenCode data dir: the database wins over the legacy tree.
			if (f == OpenCode || f == Auto) && isOpenCodeDir(p) {
				if t, ok := openCodeTarget(p); ok {
					out = append(out, t)
				}
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil // a device, FIFO or socket: nothing to read
		}
		ff := formatByName(f, p)
		if ff == "" {
			if (f == Codex || f == Auto) && hasTranscriptExt(p) ||
				f == Gemini && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl")) {
				near++
			}
			return nil
		}
		if strings.HasSuffix(p, ".jsonl.zst") {
			zst = append(zst, p)
			return nil
		}
		if ff == Codex || ff == ClaudeCode || ff == JSONL {
			plain[p] = true
		}
		if t, err := statTarget(p, ff); err == nil {
			out = append(out, t)
		}
		return nil
	})
	// A compressed rollout is read only when its plain twin is gone.
	for _, p := range zst {
		if plain[strings.TrimSuffix(p, ".zst")] {
			continue
		}
		if t, err := statTarget(p, Codex); err == nil {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, near
}

// hasTranscriptExt reports whether p ends in an extension Auto considers.
func hasTranscriptExt(p string) bool {
	for _, ext := range []string{".jsonl", ".jsonl.zst", ".traj", ".traj.json"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// formatByName decides from the file name (and, for Auto and ambiguous
// .jsonl names, the first line) whether p is a file of format f.
func formatByName(f Format, p string) Format {
	base := filepath.Base(p)
	switch f {
	case ClaudeCode:
		if strings.HasSuffix(base, ".jsonl") {
			return ClaudeCode
		}
	case Codex:
		if strings.HasPrefix(base, "rollout-") && (strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".jsonl.zst")) {
			return Codex
		}
	case MiniSWEAgent:
		if strings.HasSuffix(base, ".traj.json") {
			return MiniSWEAgent
		}
	case SWEAgent:
		if strings.HasSuffix(base, ".traj") {
			return SWEAgent
		}
	case JSONL:
		if strings.HasSuffix(base, ".jsonl") {
			return JSONL
		}
	case Gemini:
		if geminiName(p) {
			return Gemini
		}
	case Auto:
		if geminiName(p) {
			return Gemini
		}
		if hasTranscriptExt(base) {
			return sniff(p)
		}
	}
	return ""
}

// geminiName reports whether p is named as Gemini CLI names its sessions:
// chats/session-*.json or .jsonl, or a subagent's chats/PARENT/ID.jsonl.
func geminiName(p string) bool {
	base, dir := filepath.Base(p), filepath.Base(filepath.Dir(p))
	if !strings.HasSuffix(base, ".json") && !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	return dir == "chats" && strings.HasPrefix(base, "session-") ||
		filepath.Base(filepath.Dir(filepath.Dir(p))) == "chats" && strings.HasSuffix(base, ".jsonl")
}

// sniff detects a file's format from its name and first record.
func sniff(p string) Format {
	base := filepath.Base(p)
	switch {
	case strings.HasSuffix(base, ".traj.json"):
		return MiniSWEAgent
	case strings.HasSuffix(base, ".traj"):
		return SWEAgent
	case strings.HasSuffix(base, ".db"):
		return OpenCode
	case strings.HasPrefix(base, "rollout-") && (strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".jsonl.zst")):
		return Codex
	}
	if geminiName(p) {
		return Gemini
	}
	line := firstLine(p)
	if len(line) == 0 {
		return ""
	}
	var probe struct {
		ProjectHash string          `json:"projectHash"`
		Type        string          `json:"type"`
		Payload     json.RawMessage `json:"payload"`
		SessionID   string          `json:"sessionId"`
		UUID        string          `json:"uuid"`
		LeafUUID    string          `json:"leafUuid"`
		Content     json.RawMessage `json:"content"`
		Messages    json.RawMessage `json:"messages"`
		Traj        json.RawMessage `json:"trajectory"`
	}
	if json.Unmarshal(line, &probe) != nil {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) && (strings.HasSuffix(base, ".json")) {
			// A pretty-printed document: Gemini CLI's older sessions
			// start with their sessionId and projectHash.
			if h := head(p, 4096); bytes.Contains(h, []byte(`"sessionId"`)) && bytes.Contains(h, []byte(`"projectHash"`)) {
				return Gemini
			}
			return MiniSWEAgent
		}
		return ""
	}
	switch {
	case probe.ProjectHash != "":
		return Gemini
	case probe.Payload != nil && probe.Type != "":
		return Codex
	case probe.SessionID != "" || probe.UUID != "" || probe.LeafUUID != "" || claudeTypes[probe.Type]:
		return ClaudeCode
	case len(probe.Content) > 0 && probe.Content[0] == '"':
		return JSONL
	case probe.Traj != nil:
		return SWEAgent
	case probe.Messages != nil:
		return MiniSWEAgent
	}
	return ""
}

var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "attachment": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "last-prompt": true, "permission-mode": true,
	"custom-title": true, "tag": true,
}

// firstLine reads the first line of p (decompressing .zst), at most 1 MiB.
func firstLine(p string) []byte {
	f, _, err := openRegular(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(p, ".zst") {
		d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
		if err != nil {
			return nil
		}
		defer d.Close()
		r = d
	}
	br := bufio.NewReaderSize(io.LimitReader(r, 1<<20), 64<<10)
	line, _ := br.ReadBytes('\n')
	return bytes.TrimSpace(line)
}

// head reads at most n bytes from the start of p.
func head(p string, n int) []byte {
	f, _, err := openRegular(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(f, b)
	return b[:k]
}
