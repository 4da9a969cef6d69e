package summarize

import (
	"regexp"
	"strings"
)

// Summaries of prose: web fetches (URL and page title) and reasoning,
// messages and notes (their first sentence).

var reTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

var fetchers = map[string]bool{"curl": true, "wget": true, "http": true, "xh": true}

func webFetch(d *doc) string {
	url := d.url
	switch {
	case d.isTool("webfetch", "web_fetch", "fetch", "browse", "open_url", "read_url", "fetch_url"):
	case fetchers[d.program()]:
		for _, w := range d.firstStage() {
			if w = unquote(w); strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") {
				url = w
			}
		}
		if url == "" {
			return ""
		}
	default:
		return ""
	}
	if url == "" {
		url = d.cmd
	}
	body := d.text
	title := ""
	if m := reTitle.FindStringSubmatch(body); m != nil {
		title = oneLine(m[1])
	} else {
		for _, l := range strings.Split(body, "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "# ") {
				title = strings.TrimSpace(t[2:])
				break
			}
		}
	}
	if title == "" {
		title = firstLine([]byte(body))
	}
	if title == "" {
		return url
	}
	return url + " — " + title
}

// firstSentence returns the first sentence of prose, after a leading
// "THOUGHT:" label and markdown heading marks.
func firstSentence(text string) string {
	t := strings.TrimSpace(text)
	for _, p := range []string{"THOUGHT:", "Thought:", "DISCUSSION", "**"} {
		t = strings.TrimSpace(strings.TrimPrefix(t, p))
	}
	t = strings.TrimLeft(t, "# ")
	// A leading markup tag ("<pr_description>") is a wrapper, not prose.
	for strings.HasPrefix(t, "<") {
		i := strings.IndexByte(t, '>')
		if i < 0 || i > 64 || strings.ContainsAny(t[:i], " \n") {
			break
		}
		t = strings.TrimSpace(t[i+1:])
	}
	// A paragraph break ends the sentence even without punctuation.
	if i := strings.Index(t, "\n\n"); i >= 0 {
		t = t[:i]
	}
	t = oneLine(t)
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '.', '?', '!':
			if i >= 12 && (i+1 == len(t) || t[i+1] == ' ') && !abbrev(t[:i]) {
				return t[:i+1]
			}
		}
	}
	return t
}

// abbrev reports whether the text before a period ends in an abbreviation
// or a dotted name that does not end a sentence.
func abbrev(s string) bool {
	for _, a := range []string{" e.g", " i.e", " etc", " vs", " Mr", " Dr", " cf"} {
		if strings.HasSuffix(s, a) {
			return true
		}
	}
	return false
}
