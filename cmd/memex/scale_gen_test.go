package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// The scale benchmarks (scale_test.go) need hundreds of megabytes of agent
// transcripts; the shared corpora hold about 17 MB of them (Claude Code,
// mini-swe-agent, SWE-agent, Codex, Gemini CLI; the retrieval sets are not
// transcripts and are left out). scaleCorpus makes an input of a given size
// from copies of those files, each copy in a directory of its own (c000,
// c001, ...) and made distinct so that neither memex's idempotency keys nor
// its content dedup make a copy free:
//
//   - copy 0 is the corpora as they are;
//   - in copy k > 0, every digit inside a JSON string is replaced through a
//     permutation of 0-9 drawn from k (tool-call ids, uuids, line numbers,
//     counts, hashes and paths in the outputs all change; a string that
//     starts as a date, 2006-01-02..., is kept, so times still parse; \u
//     escapes are kept; JSON numbers are kept);
//   - the values of "cwd" and "instance_id" get the suffix -cK, so every copy
//     is its own project (idempotency keys are scoped by project) and its
//     own sessions.
//
// A body without a digit in it is still the same in every copy and is
// stored once by the archive's dedup, as it would be in a user's store
// holding the same `ls` output twice; the benchmark reports how many bodies
// that is. The files of the last copy are taken in path order until the
// size is reached. The input is made once under $MEMEX_SCALE_DIR (default
// the system's temporary directory, memex-scale/) and reused.

// scaleSources lists the corpora files a copy is made of, sorted.
func scaleSources(tb testing.TB) (root string, files []string) {
	root = testutil.Corpora(tb)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "retrieval" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "README.md" || !d.Type().IsRegular() {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(files)
	return root, files
}

// scaleCorpus returns a directory of at least mb megabytes (10^6 bytes) of
// transcripts made as described above, and its size in bytes.
func scaleCorpus(tb testing.TB, mb int) (string, int64) {
	root, files := scaleSources(tb)
	base := os.Getenv("MEMEX_SCALE_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), "memex-scale")
	}
	dir := filepath.Join(base, fmt.Sprintf("input-%dMB", mb))
	stamp := filepath.Join(dir, ".complete")
	if b, err := os.ReadFile(stamp); err == nil {
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return dir, n
	}
	if err := os.RemoveAll(dir); err != nil {
		tb.Fatal(err)
	}
	want := int64(mb) * 1e6
	var total int64
	for k := 0; total < want; k++ {
		perm := digitPerm(k)
		suffix := ""
		if k > 0 {
			suffix = fmt.Sprintf("-c%d", k)
		}
		for _, rel := range files {
			if total >= want {
				break
			}
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				tb.Fatal(err)
			}
			out := src
			if k > 0 {
				out = rewriteJSON(src, perm, suffix)
			}
			dst := filepath.Join(dir, fmt.Sprintf("c%03d", k), rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(dst, out, 0o644); err != nil {
				tb.Fatal(err)
			}
			total += int64(len(out))
		}
	}
	if err := os.WriteFile(stamp, []byte(strconv.FormatInt(total, 10)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, total
}

// digitPerm is copy k's permutation of the ten digits: the identity for
// k = 0, a shuffle drawn from k (never the identity) otherwise.
func digitPerm(k int) [10]byte {
	var p [10]byte
	for i := range p {
		p[i] = byte('0' + i)
	}
	if k == 0 {
		return p
	}
	r := rand.New(rand.NewPCG(uint64(k), 0x6d656d6578))
	for {
		r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		for i := range p {
			if p[i] != byte('0'+i) {
				return p
			}
		}
	}
}

// rewriteJSON returns src, a JSON document or JSON lines, with the digits
// of its string literals mapped through perm (except in strings starting
// as a date and in \u escapes) and suffix appended to the values of the
// "cwd" and "instance_id" keys. Bytes outside string literals, JSON
// numbers included, are copied as they are; a file that is not JSON is
// treated the same way, string by string.
func rewriteJSON(src []byte, perm [10]byte, suffix string) []byte {
	out := make([]byte, 0, len(src)+len(src)/50)
	var lastKey []byte // the last string literal that was an object key
	for i := 0; i < len(src); {
		c := src[i]
		if c != '"' {
			out = append(out, c)
			i++
			continue
		}
		// A string literal: find its end.
		j := i + 1
		for j < len(src) && src[j] != '"' {
			if src[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(src) {
			out = append(out, src[i:]...)
			break
		}
		lit := src[i+1 : j] // without quotes
		k := j + 1
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		isKey := k < len(src) && src[k] == ':'
		out = append(out, '"')
		switch {
		case isKey:
			out = append(out, lit...)
			lastKey = lit
		case looksLikeDate(lit):
			out = append(out, lit...)
		default:
			for x := 0; x < len(lit); x++ {
				b := lit[x]
				switch {
				case b == '\\' && x+1 < len(lit) && lit[x+1] == 'u':
					end := min(x+6, len(lit))
					out = append(out, lit[x:end]...)
					x = end - 1
				case b == '\\' && x+1 < len(lit):
					out = append(out, b, lit[x+1])
					x++
				case b >= '0' && b <= '9':
					out = append(out, perm[b-'0'])
				default:
					out = append(out, b)
				}
			}
			if suffix != "" && (bytes.Equal(lastKey, []byte("cwd")) || bytes.Equal(lastKey, []byte("instance_id"))) && len(lit) > 0 {
				out = append(out, suffix...)
			}
		}
		if !isKey {
			lastKey = nil
		}
		out = append(out, '"')
		i = j + 1
	}
	return out
}

// looksLikeDate reports whether s starts as 2006-01-02.
func looksLikeDate(s []byte) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func TestRewriteJSONChangesDigitsOnlyInStrings(t *testing.T) {
	perm := digitPerm(3)
	p := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if c >= '0' && c <= '9' {
				b[i] = perm[c-'0']
			}
		}
		return string(b)
	}
	src := `{"type":"user","cwd":"/src/app","n":12,"id":"toolu_0123","t":"2025-06-10T12:34:56Z","s":"caf\u00e9 line 42\n\"9\""}` + "\n" +
		`{"instance_id":"django__django-1234","x":[1,"7"]}`
	got := string(rewriteJSON([]byte(src), perm, "-c3"))
	want := `{"type":"user","cwd":"/src/app-c3","n":12,"id":"toolu_` + p("0123") + `","t":"2025-06-10T12:34:56Z","s":"caf\u00e9 line ` + p("42") + `\n\"` + p("9") + `\""}` + "\n" +
		`{"instance_id":"django__django-` + p("1234") + `-c3","x":[1,"` + p("7") + `"]}`
	if got != want {
		t.Fatalf("rewrite:\n got %s\nwant %s", got, want)
	}
	if digitPerm(0) != [10]byte{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9'} || digitPerm(1) == digitPerm(0) || digitPerm(1) == digitPerm(2) {
		t.Fatal("permutations: copy 0 must be the identity and others distinct")
	}
}
