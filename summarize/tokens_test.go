package summarize

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/dlclark/regexp2/v2/syntax"
	"github.com/tiktoken-go/tokenizer"

	"github.com/memex-archive/memex/internal/testutil"
)

// The reference is tiktoken-go/tokenizer's own cl100k_base codec, and its
// split pattern run by the same regexp2 program the codec runs.
var (
	refOnce  sync.Once
	refCodec tokenizer.Codec
	refSplit *regexp2.Regexp
)

const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func reference(tb testing.TB) (tokenizer.Codec, *regexp2.Regexp) {
	tb.Helper()
	refOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.Cl100kBase)
		if err != nil {
			panic(err)
		}
		refCodec = c
		refSplit = regexp2.MustCompile(cl100kPattern, regexp2.None)
	})
	return refCodec, refSplit
}

func refCount(tb testing.TB, s string) int {
	tb.Helper()
	c, _ := reference(tb)
	n, err := c.Count(s)
	if err != nil {
		tb.Fatalf("reference count: %v", err)
	}
	return n
}

func refPieces(tb testing.TB, s string) []string {
	tb.Helper()
	_, re := reference(tb)
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		tb.Fatalf("reference split: %v", err)
	}
	return out
}

// pieces is the pre-tokenizer's split of s, after the same replacement of
// invalid UTF-8 that Count does.
func pieces(s string) []string {
	b := []byte(s)
	if !utf8.Valid(b) {
		b = appendValid(nil, b)
	}
	var out []string
	for i := 0; i < len(b); {
		e, kind := nextPiece(b, i)
		if kind != pieceSkip {
			out = append(out, string(b[i:e]))
		}
		i = e
	}
	return out
}

// tricky holds inputs that exercise each alternative of the split pattern
// and its edges.
var tricky = []string{
	"",
	"a",
	"hello world",
	"Hello, World! It's a test.",
	// contractions in every case, and their near misses
	"it's IT'S It'S don't DON'T we're WE'RE We'Re I've I'VE i'm I'M you'll YOU'LL You'Ll he'd HE'D",
	"'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D 'Re 'rE 'lL 'Ll",
	"'r 'v 'l 'x 'sam 'tea 'reed 'veal 'mom 'lll 'dd ' 's' ''s '''",
	"x'ſ y'ſt 'ß 'K 'k", // long s folds to s; sharp s and the Kelvin sign do not
	"rock'n'roll o'clock l'été ' 're",
	"?'s !'t .'re  's\t's\n's",
	// digits
	"1 12 123 1234 12345 123456 1234567",
	"3.14159 1,000,000 0x1F 1e10 -42 +7 v1.2.3 2024-01-15T10:20:30Z",
	"١٢٣٤٥ ١٢ ⅣⅫ ½¼ ²³ 十二 𝟙𝟚𝟛𝟜",
	"abc123def 123abc abc123 a1b2c3",
	// line breaks and whitespace
	"a\nb", "a\r\nb", "a\n\nb", "a\r\n\r\nb", "a\n \nb", "a\n\n  \n b", "a \n", "a  \n  ", "\n", "\r\n", "\r", "\n\n\n",
	"line1\nline2\r\nline3\rline4",
	"trailing   ", "trailing \t ", "  leading", "\tleading", "\t\tx", " \tx", "\t x", "x  \ty", "x \t\ny",
	"a  b", "a   b", "a    b", "a\t\tb", "a \u00a0b", "a\u00a0\u00a0b", "\u3000x", "x\u2028y", "x\u0085y", "\v\fx",
	"    indented code\n        more\n\ttab\n",
	"end with newline\n", "end with spaces  ", "end with space and newline \n",
	" !", "  !", "\t!", " !!\n\n", "!!\r\n\r\n", " ...\n", "a.\n\n  \n b",
	// punctuation runs
	"x==y", "a---b", "(foo)", "((foo))", "[[1]]", "{\"k\":\"v\"}", "<<EOF>>", "a->b=>c", "...", "?!?!", "#!/bin/sh",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n",
	`{"type":"tool_result","content":"ok\n","is_error":false}`,
	"$ go test ./... -run TestX -v 2>&1 | tee out.log",
	"C:\\Users\\me\\file.txt /usr/local/bin/go https://example.com/a?b=c&d=e#f",
	// Unicode letters, numbers and marks
	"naïve café résumé Zürich straße ŒUVRE",
	"e\u0301 cafe\u0301 a\u0308b \u0301x x\u0301\u0301",
	"Привет мир Здравствуй", "こんにちは世界", "你好，世界！", "안녕하세요", "مرحبا بالعالم", "שלום", "नमस्ते दुनिया", "ไทย",
	"ǅemo ǈ ǋ", "ʰʲ ˈstress", "ꓸ ꓹ",
	// emoji and symbols
	"😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ ✓ ✗ → ← ∀x∈ℝ",
	"™ © ® € £ ¥ ° ± × ÷",
	// invalid UTF-8, NUL and controls
	"\xff", "\xfe\xff", "a\xffb", "\xe2\x82", "\xe2\x82\xac", "\xe2\x82a", "\xf0\x9f\x98", "\xf0\x9f\x98\x80", "\xed\xa0\x80", "\xc0\xaf",
	"x\xff y", " \xff", "\xff\xffabc", "abc\x80\x80\x80", "\xef\xbf\xbd", "\xef\xbf\xbd\xff",
	"\x00", "\x00\x00\x00", "a\x00b", "\x00 a", "\x1b[31mred\x1b[0m", "\x01\x02\x03\x7f",
	// DELETE is matched by no alternative of the reference: skipped
	"\x7f", "a\x7fb", "!!\x7f!!", " \x7fx", "  \x7f", "\x7f\x7f 's", "x\n\x7f\n", "1\x7f2", "'\x7fs", "\t\x7fa",
	// special tokens are plain text to Count
	"<|endoftext|>", "a<|endoftext|>b <|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|>",
	// long runs
	strings.Repeat("a", 1000),
	strings.Repeat("ab", 700),
	strings.Repeat("=", 300),
	strings.Repeat("-", 80) + "\n" + strings.Repeat("=", 80),
	strings.Repeat(" ", 500) + "x",
	strings.Repeat(" ", 500),
	strings.Repeat("\n", 300),
	strings.Repeat("1", 100),
	strings.Repeat("😀", 100),
	strings.Repeat("\x00", 200),
	strings.Repeat("\xff", 100),
	strings.Repeat("word ", 400),
	strings.Repeat("aGVsbG8gd29ybGQ=", 200),
}

func TestPiecesMatchReference(t *testing.T) {
	for _, s := range tricky {
		got, want := pieces(s), refPieces(t, s)
		if !equalStrings(got, want) {
			t.Errorf("pieces(%q):\n got  %q\n want %q", s, got, want)
		}
	}
}

func TestCountMatchesReference(t *testing.T) {
	for _, s := range tricky {
		if got, want := CountString(s), refCount(t, s); got != want {
			t.Errorf("CountString(%q) = %d, want %d", s, got, want)
		}
		if got, want := Count([]byte(s)), refCount(t, s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestCountNotOpenAISplit pins the one place where the reference's split
// differs from the pattern read as a regular expression (and from OpenAI's
// Python tiktoken): \s*[\r\n]+ stops after the first run of line breaks.
func TestCountNotOpenAISplit(t *testing.T) {
	if got, want := pieces("a\n \nb"), []string{"a", "\n", " \n", "b"}; !equalStrings(got, want) {
		t.Errorf("pieces = %q, want %q", got, want)
	}
}

// TestRuneClasses checks the class of every rune against the character sets
// the reference's program uses.
func TestRuneClasses(t *testing.T) {
	// The sets [^\s\p{L}\p{N}] and [^\n\r\p{L}\p{N}] as tiktoken-go's
	// generated regexp2 code builds them.
	other := syntax.NewCharSetRuntime("\x01\x00\x00\x00\x00\x03\x00\x00\x00\x01 \x01L\x01N")
	prefix := syntax.NewCharSetRuntime("\x01\x02\x00\x00\x00\x02\x00\x00\x00\n\n\r\r\x01L\x01N")
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not encodable in UTF-8
		}
		cls := classOfRune(r)
		if r == 0x7f {
			// The reference's ASCII bitmaps leave DELETE out of every set.
			if cls != clsSkip || asciiClass[r] != clsSkip || bmpClass[r] != clsSkip {
				t.Fatalf("DELETE is not skipped")
			}
			continue
		}
		checks := []struct {
			name     string
			got, ref bool
		}{
			{`\p{L}`, cls == clsLetter, unicode.In(r, unicode.L)},
			{`\p{N}`, cls == clsNumber, unicode.In(r, unicode.N)},
			{`\s`, cls == clsSpace || cls == clsNewline, unicode.IsSpace(r)},
			{`[\r\n]`, cls == clsNewline, r == '\r' || r == '\n'},
			{`[^\s\p{L}\p{N}]`, cls == clsOther, other.CharIn(r)},
			{`[^\r\n\p{L}\p{N}]`, cls == clsOther || cls == clsSpace, prefix.CharIn(r)},
		}
		for _, c := range checks {
			if c.got != c.ref {
				t.Fatalf("rune %U: in %s = %v, reference %v", r, c.name, c.got, c.ref)
			}
		}
		if r < utf8.RuneSelf && asciiClass[r] != cls {
			t.Fatalf("asciiClass[%U] = %d, want %d", r, asciiClass[r], cls)
		}
		if r < 1<<16 && bmpClass[r] != cls {
			t.Fatalf("bmpClass[%U] = %d, want %d", r, bmpClass[r], cls)
		}
	}
}

// TestEveryRuneInContext splits runes in a few contexts: after a letter,
// after a space, doubled, and before a letter. It takes every rune of the
// Basic Multilingual Plane and every 13th beyond (TestRuneClasses checks
// the class of every rune; this checks the splitter and the counts around
// them).
func TestEveryRuneInContext(t *testing.T) {
	var sb strings.Builder
	flush := func() {
		s := sb.String()
		sb.Reset()
		if got, want := pieces(s), refPieces(t, s); !equalStrings(got, want) {
			t.Fatalf("pieces differ on a block of runes:\n got  %q\n want %q", got, want)
		}
		if got, want := CountString(s), refCount(t, s); got != want {
			t.Fatalf("CountString = %d, reference %d on %q", got, want, s)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r > 0xFFFF && r%13 != 0 || (testing.Short() || raceEnabled) && r%97 != 0 {
			continue
		}
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		c := string(r)
		sb.WriteString("a" + c + " " + c + c + "x\n" + c + "1 ")
		if sb.Len() > 1<<16 {
			flush()
		}
	}
	flush()
}

func TestCountCorpora(t *testing.T) {
	dir := testutil.Corpora(t)
	files := corpusFiles(t, dir)
	if len(files) == 0 {
		t.Skip("no corpus files")
	}
	if raceEnabled || testing.Short() {
		var some []string
		for i := 0; i < len(files); i += 10 {
			some = append(some, files[i])
		}
		files = some
	}
	rng := rand.New(rand.NewPCG(1, 2))
	total, tokens := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		want := refCount(t, string(data))
		if got := Count(data); got != want {
			t.Errorf("%s: Count = %d, reference %d; first differing line: %s", rel, got, want, firstDiffLine(t, data))
			continue
		}
		c := NewCounter()
		writeSplit(c, data, rng, 1+rng.IntN(1<<16))
		if got := c.Count(); got != int64(want) {
			t.Errorf("%s: Counter = %d, reference %d", rel, got, want)
		}
		total += len(data)
		tokens += want
	}
	t.Logf("%d files, %d bytes, %d tokens match the reference (%.2f bytes/token)", len(files), total, tokens, float64(total)/float64(max(tokens, 1)))
}

func corpusFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// firstDiffLine names the first line whose count differs, to debug a
// mismatch on a large file.
func firstDiffLine(tb testing.TB, data []byte) string {
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if got, want := Count(line), refCount(tb, string(line)); got != want {
			return fmt.Sprintf("line %d (%d vs %d): %.300q", i+1, got, want, line)
		}
	}
	return "none (the difference spans lines)"
}

// writeSplit writes data to c in parts of random sizes up to maxPart.
func writeSplit(c *Counter, data []byte, rng *rand.Rand, maxPart int) {
	for len(data) > 0 {
		k := min(len(data), 1+rng.IntN(maxPart))
		c.Write(data[:k])
		data = data[k:]
	}
}

func TestCounterSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	all := strings.Join(tricky, "")
	inputs := append([]string{all, strings.Join(tricky, "\n"), strings.Join(tricky, " ")}, tricky...)
	for _, s := range inputs {
		want := int64(Count([]byte(s)))
		for _, maxPart := range []int{1, 2, 3, 7, 64, 1 << 20} {
			c := NewCounter()
			writeSplit(c, []byte(s), rng, maxPart)
			if got := c.Count(); got != want {
				t.Errorf("Counter in parts of up to %d = %d, Count = %d on %.200q", maxPart, got, want, s)
			}
		}
	}
}

// TestCounterEveryCut writes a text in two parts, cut at every byte.
func TestCounterEveryCut(t *testing.T) {
	for _, s := range []string{
		"Hello, it's 12345 o'clock.\n\n  \t\r\n  x \xe2\x82\xac\xff 😀 ab  \n",
		"a\n \nb\t\t\n'll 'LL  \u00a0\u3000 end   ",
	} {
		want := int64(Count([]byte(s)))
		for i := 0; i <= len(s); i++ {
			c := NewCounter()
			c.next, c.chunk = 1, 1 // flush at every write
			c.Write([]byte(s[:i]))
			mid := c.Count()
			c.Write([]byte(s[i:]))
			if got := c.Count(); got != want {
				t.Errorf("cut at %d: Counter = %d, Count = %d", i, got, want)
			}
			if want := int64(Count([]byte(s[:i]))); mid != want {
				t.Errorf("cut at %d: Count() mid-body = %d, want %d", i, mid, want)
			}
		}
	}
}

// TestLineBoundaries checks the property the streaming design rests on: no
// piece spans a line break followed by a non-whitespace byte, so the count
// of a text is the sum of the counts of its parts cut there.
func TestLineBoundaries(t *testing.T) {
	texts := []string{strings.Join(tricky, "\n"), strings.Join(tricky, "\r\n"), strings.Join(tricky, "\n \n")}
	if dir := testutil.CorporaDir(); dir != "" {
		for i, path := range corpusFiles(t, dir) {
			if i%10 == 0 {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, string(data))
			}
		}
	}
	for _, s := range texts {
		sum, start := 0, 0
		for i := 1; i < len(s); i++ {
			if c := s[i]; s[i-1] == '\n' && c < utf8.RuneSelf && !unicode.IsSpace(rune(c)) {
				sum += CountString(s[start:i])
				start = i
			}
		}
		sum += CountString(s[start:])
		if want := CountString(s); sum != want {
			t.Errorf("sum over lines = %d, Count = %d on %.100q", sum, want, s)
		}
	}
}

// TestCounterMemory: a run with no boundary at all stays within the
// documented bound. (NUL bytes: one piece, but no pair of them is a token,
// so the merge is quick.)
func TestCounterMemory(t *testing.T) {
	c := NewCounter()
	chunk := []byte(strings.Repeat("\x00", 100<<10))
	peak := 0
	for range 50 { // 5 MiB
		c.Write(chunk)
		peak = max(peak, cap(c.buf))
	}
	if limit := 2*counterMaxCarry + counterChunk + len(chunk); peak > limit {
		t.Errorf("Counter held %d bytes, over %d", peak, limit)
	}
	if c.Count() == 0 {
		t.Error("no tokens counted")
	}
}

// TestCounterLongRun feeds runs with no settled piece boundary. Up to
// maxCarry they are exact; beyond it, each forced cut may cost a few
// tokens, and this measures how many.
func TestCounterLongRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	letters := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[rng.IntN(52)]
		}
		return string(b)
	}
	symbols := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~"[rng.IntN(31)]
		}
		return string(b)
	}
	runs := map[string]string{
		"letters":   letters(40000),
		"symbols":   symbols(40000),
		"equals":    strings.Repeat("=", 40000),
		"spaces":    strings.Repeat(" ", 40000) + "x",
		"tabs":      strings.Repeat(" \t", 20000),
		"nul":       strings.Repeat("\x00", 40000),
		"emoji":     strings.Repeat("😀", 10000),
		"accented":  strings.Repeat("é", 20000),
		"mixed sym": strings.Repeat("->", 20000) + "\n",
	}
	worst := 0.0
	for name, s := range runs {
		want := int64(Count([]byte(s)))
		// Exact while the run fits the carry.
		c := NewCounter()
		writeSplit(c, []byte(s), rng, 1000)
		if got := c.Count(); got != want {
			t.Errorf("%s: Counter = %d, Count = %d", name, got, want)
		}
		// With a small carry, forced cuts: bounded error.
		const carry = 1000
		c = NewCounter()
		c.maxCarry = carry
		c.next, c.chunk = 256, 256
		writeSplit(c, []byte(s), rng, 300)
		got := c.Count()
		cuts := len(s) / carry
		diff := got - want
		if diff < 0 {
			diff = -diff
		}
		per := float64(diff) / float64(cuts)
		worst = max(worst, per)
		if diff > int64(2*cuts) {
			t.Errorf("%s: Counter with %d-byte carry = %d, Count = %d: off by %d over about %d forced cuts", name, carry, got, want, diff, cuts)
		}
	}
	t.Logf("forced cuts cost at most %.2f tokens each on these runs", worst)
}

func TestTruncate(t *testing.T) {
	inputs := append([]string{
		"The quick brown fox jumps over the lazy dog.\nAnd then it's 12345 o'clock.\n\n   indented   \t\n",
		strings.Repeat("=", 5000),
		strings.Repeat("supercalifragilistic", 100),
		"x" + strings.Repeat(" ", 300) + "y",
		"a\xffb\xe2\x82c\xf0\x9f\x98\x80d \xff\xff  \xfe end",
	}, tricky...)
	for _, s := range inputs {
		total := CountString(s)
		for _, max := range []int{-1, 0, 1, 2, 3, 5, 8, 13, 50, 200, total - 1, total, total + 1} {
			prefix, n := Truncate(s, max)
			if !strings.HasPrefix(s, prefix) {
				t.Fatalf("Truncate(%.80q, %d) = %.80q, not a prefix", s, max, prefix)
			}
			if got := CountString(prefix); got != n {
				t.Errorf("Truncate(%.80q, %d) says %d tokens, Count says %d", s, max, n, got)
			}
			if max <= 0 {
				if prefix != "" {
					t.Errorf("Truncate(%.80q, %d) = %.80q, want empty", s, max, prefix)
				}
				continue
			}
			if n > max {
				t.Errorf("Truncate(%.80q, %d) = %d tokens, over max", s, max, n)
			}
			if max >= total && prefix != s {
				t.Errorf("Truncate(%.80q, %d) cut a text of %d tokens", s, max, total)
			}
			// No longer prefix of whole pieces fits.
			pos, sum := 0, 0
			for _, p := range pieces(s) {
				sum += CountString(p)
				pos += len(p)
				if sum > max {
					break
				}
				if utf8.ValidString(s) && pos > len(prefix) {
					t.Errorf("Truncate(%.80q, %d) = %d bytes, but %d bytes of whole pieces fit", s, max, len(prefix), pos)
					break
				}
			}
		}
	}
}

// TestTruncateLongLine: a line that is one piece still gives a prefix.
func TestTruncateLongLine(t *testing.T) {
	s := strings.Repeat("=", 100000)
	prefix, n := Truncate(s, 10)
	if n == 0 || n > 10 || CountString(prefix) != n {
		t.Fatalf("Truncate = %d bytes, %d tokens", len(prefix), n)
	}
	if more := s[:len(prefix)+1]; CountString(more) <= 10 {
		t.Errorf("Truncate stopped at %d bytes but %d bytes fit", len(prefix), len(more))
	}
}

func TestBPEHeapMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vt := vocab()
	alphabets := []string{"abcdefghijklmnopqrstuvwxyz", "aeiou", "ab", "=-_", " ", "\x00\x01", "éàü"}
	for range 2000 {
		alpha := alphabets[rng.IntN(len(alphabets))]
		n := 2 + rng.IntN(bpeHeapMin-2)
		b := make([]byte, 0, n)
		for len(b) < n {
			b = append(b, alpha[rng.IntN(len(alpha))])
		}
		if scan, heap := bpeCount(vt, b), bpeCountHeap(vt, b); scan != heap {
			t.Fatalf("bpe of %q: scan %d, heap %d", b, scan, heap)
		}
	}
}

func TestCountConcurrent(t *testing.T) {
	var inputs []string
	for i := range 64 {
		inputs = append(inputs, fmt.Sprintf("worker %d says %s", i, strings.Join(tricky, fmt.Sprint(i))))
	}
	want := make([]int, len(inputs))
	for i, s := range inputs {
		want[i] = refCount(t, s)
	}
	resetPieceCache()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for k := range inputs {
				i := (k + w*7) % len(inputs)
				if got := CountString(inputs[i]); got != want[i] {
					t.Errorf("input %d: %d, want %d", i, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

func FuzzCountMatchesReference(f *testing.F) {
	for _, s := range tricky {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := string(data)
		if got, want := Count(data), refCount(t, s); got != want {
			t.Fatalf("Count(%q) = %d, reference %d; pieces %q, reference %q", s, got, want, pieces(s), refPieces(t, s))
		}
	})
}

func FuzzCounterSplits(f *testing.F) {
	for i, s := range tricky {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		want := int64(Count(data))
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		c := NewCounter()
		c.next = 1 + rng.IntN(8) // flush often, so every cut is exercised
		for rest := data; len(rest) > 0; {
			k := min(len(rest), rng.IntN(9))
			c.Write(rest[:k])
			rest = rest[k:]
			c.next = len(c.buf) + 1 + rng.IntN(8)
		}
		if got := c.Count(); got != want {
			t.Fatalf("Counter = %d, Count = %d on %q", got, want, data)
		}
	})
}

func FuzzTruncate(f *testing.F) {
	for i, s := range tricky {
		f.Add(s, i%20)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		prefix, n := Truncate(s, max)
		if !strings.HasPrefix(s, prefix) {
			t.Fatalf("not a prefix")
		}
		if got := CountString(prefix); got != n || (max > 0 && n > max) || (max <= 0 && n != 0) {
			t.Fatalf("Truncate(%q, %d) = %q with %d tokens; Count says %d", s, max, prefix, n, got)
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
