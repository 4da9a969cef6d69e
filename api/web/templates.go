package web

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// pageNames are the templates under templates/, each a page of its own
// with the layout around it.
var pageNames = []string{"sessions", "session", "entry", "peek", "search", "context", "eval", "error"}

// funcs are the helpers the templates call. None returns template.HTML
// built from data: everything from the archive goes through html/template's
// escaping (the snippet and ID-link helpers return pieces, not markup).
var funcs = template.FuncMap{
	"commas":  commas,
	"count":   count,
	"time":    func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
	"clock":   func(t time.Time) string { return t.Local().Format("15:04:05") },
	"day":     func(t time.Time) string { return t.Local().Format("Mon 2 Jan 2006") },
	"iso":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"dur":     duration,
	"session": sessionURL,
	"entry":   func(id memex.ID) string { return "/e/" + id.String() },
	"query":   func(kv ...string) string { return queryString(kv...) },
	"pct":     func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) + "%" },
	"exit": func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	},
	"svg": func(b []byte) template.URL {
		// An SVG shown through <img> runs no script, whatever it holds.
		return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b))
	},
	"add": func(a, b int) int { return a + b },
}

func parsePages() (map[string]*template.Template, error) {
	base, err := template.New("").Funcs(funcs).ParseFS(files, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(files, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: templates: %w", err)
		}
		pages[name] = t
	}
	return pages, nil
}

// assetsTag is an ETag for the embedded assets: they change only with the
// binary.
func assetsTag(assets fs.FS) string {
	h := sha256.New()
	_ = fs.WalkDir(assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(assets, p)
			h.Write([]byte(p))
			h.Write(b)
		}
		return nil
	})
	return `"` + hex.EncodeToString(h.Sum(nil))[:16] + `"`
}

// count is n with the noun after it, singular for one: "1 failure",
// "2,048 failures".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return commas(n) + " " + many
}

func commas(n any) string {
	var v int64
	switch x := n.(type) {
	case int:
		v = int64(x)
	case int64:
		v = x
	case uint64:
		v = int64(x)
	}
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// queryString builds "?k=v&..." from pairs, leaving out empty values.
func queryString(kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// piece is a run of text, marked or not, or a link to an entry: what a
// template prints of a snippet or an IndexedSummary, escaping each.
type piece struct {
	Text string
	Mark bool
	ID   string // the text is this entry's ID: link it
}

var idPattern = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)

// linkIDs cuts text into pieces, the entry IDs in it apart.
func linkIDs(text string) []piece {
	var out []piece
	last := 0
	for _, m := range idPattern.FindAllStringIndex(text, -1) {
		if !memex.LooksLikeID(text[m[0]:m[1]]) {
			continue
		}
		if m[0] > last {
			out = append(out, piece{Text: text[last:m[0]]})
		}
		out = append(out, piece{Text: text[m[0]:m[1]], ID: text[m[0]:m[1]]})
		last = m[1]
	}
	if last < len(text) {
		out = append(out, piece{Text: text[last:]})
	}
	return out
}

// markTerms cuts text into pieces, the words of query in it marked
// (case-insensitively; field filters and operators are not words).
func markTerms(text, query string) []piece {
	var terms []string
	for _, f := range strings.Fields(query) {
		f = strings.Trim(f, `"()+-`)
		if k, val, ok := strings.Cut(f, ":"); ok && k != "" && !strings.ContainsAny(k, "./") {
			f = strings.Trim(val, `"`)
			if k != "content" && k != "input" && k != "summary" && k != "path" {
				continue
			}
		}
		if len(f) >= 2 {
			terms = append(terms, regexp.QuoteMeta(f))
		}
	}
	if len(terms) == 0 {
		return []piece{{Text: text}}
	}
	re, err := regexp.Compile(`(?i)` + strings.Join(terms, "|"))
	if err != nil {
		return []piece{{Text: text}}
	}
	var out []piece
	last := 0
	for _, m := range re.FindAllStringIndex(text, -1) {
		if m[0] > last {
			out = append(out, piece{Text: text[last:m[0]]})
		}
		out = append(out, piece{Text: text[m[0]:m[1]], Mark: true})
		last = m[1]
	}
	if last < len(text) {
		out = append(out, piece{Text: text[last:]})
	}
	return out
}
