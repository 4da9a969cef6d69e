// Package redact replaces credentials in text with [REDACTED:kind] before
// the text is stored or indexed. Entry is the write policy every write path
// (ingest, add, run, hooks, HTTP, MCP) applies to an entry and its body; it
// counts what it replaced, and the count is stored as the entry's Redacted.
//
// It runs on every archived byte, so it must be cheap on ordinary tool
// output: each detector has literal anchors (a token prefix, a key-name
// stem), all anchors are found in one table-driven pass over the input
// (scan.go), and only at an anchor does a hand-written check of the bytes
// around it run. No regular expression runs over the input, and input
// without any anchor is returned as is.
//
// Detectors, by kind. Provider formats, replaced wherever they appear:
//
//	aws_access_key    AKIA/ASIA/ABIA/ACCA + 16 upper-case alphanumerics
//	gcp_api_key       AIza + 35 of [A-Za-z0-9_-]
//	gcp_oauth_token   ya29. + 20 or more token characters
//	gcp_oauth_secret  GOCSPX- + 24 or more
//	azure_key         AccountKey= / SharedAccessKey= base64 values; client secrets (xxxNQ~...)
//	github_token      ghp_/gho_/ghu_/ghs_/ghr_ + 36, github_pat_ + 22 or more
//	gitlab_token      glpat- + 20 or more; gldt-, glrt-, glptt-, glsoat- tokens
//	slack_token       xoxb-/xoxp-/xoxa-/xoxr-/xoxs-/xapp- tokens; Slack webhook URLs
//	stripe_key        sk_live_/sk_test_/rk_live_/rk_test_ + 16 or more, whsec_ + 24 or more
//	anthropic_key     sk-ant- + 20 or more
//	openai_key        sk- (sk-proj-, sk-svcacct-, ...) + 20 or more with letters and digits
//	npm_token         npm_ + 36 letters and digits
//	huggingface_token hf_ + 34 or more letters of both cases (and digits)
//	sendgrid_key      SG. + 22 + . + 43
//	pypi_token        pypi-Ag + 50 or more (a macaroon)
//	digitalocean_token dop_v1_/doo_v1_/dor_v1_ + 64
//	shopify_token     shpat_/shpss_/shpca_/shppa_ + 32
//	private_key       -----BEGIN ... PRIVATE KEY----- blocks, to the END line (or the end of the base64 run)
//	jwt               eyJ<header>.eyJ<payload>.<signature>
//	bearer_token      "Bearer " + 20 or more token characters with a digit
//
// Values known by their place, replaced only when they read as a secret
// (value.go: not a placeholder, not words of one case, not a sequence or a
// path, long enough and of enough entropy):
//
//	url_password      scheme://user:PASSWORD@host (the user may be empty)
//	basic_auth        Authorization: Basic <base64 user:password>, docker's "auth", curl -u user:PASSWORD
//	k8s_secret        the values under data: / stringData: of a YAML kind: Secret
//	aws_secret_key, aws_session_token, password, secret, token, api_key, credential, authorization
//	                  the value of KEY=value, KEY: "value", "key": "value" (also
//	                  JSON-escaped \"key\": \"value\") whose key names a secret;
//	                  unquoted "key = value" and "key: value" when the key
//	                  starts its line (INI, ~/.aws/credentials, YAML)
//
// Near-misses are left alone on purpose: git hashes and UUIDs have no
// anchor; base64 of ordinary data is not preceded by a secret-naming key;
// token_count=5 has a numeric value; password_field = forms.CharField() has
// an excluded key word and an unquoted value after a space; test values
// (SECRET_KEY='secret', http://user:pass:word@example.com) stay distinct.
//
// Redact is idempotent: the replacement text matches no detector, and
// Redact re-runs itself when it changed something, until nothing changes.
package redact

import (
	"bytes"
	"slices"
)

// match is one credential found at b[start:end].
type match struct {
	start, end int
	kind       string
	generic    bool // from a KEY=value rule; a specific token rule wins on overlap
}

// Redact returns b with every recognised credential replaced by
// "[REDACTED:kind]", the number of replacements, and the count per kind.
// When nothing is found it returns b itself (not a copy), n == 0 and a nil
// map; otherwise out is a new slice and b is not modified.
func Redact(b []byte) (out []byte, n int, kinds map[string]int) {
	out = b
	// A replacement can expose a neighbour to a detector only in contrived
	// input; a few rounds reach the fixed point that makes Redact idempotent.
	for round := 0; round < 4; round++ {
		ms := find(out)
		if len(ms) == 0 {
			break
		}
		if kinds == nil {
			kinds = make(map[string]int)
		}
		out = apply(out, ms, kinds)
		n += len(ms)
	}
	return out, n, kinds
}

// String is Redact for strings.
func String(s string) (string, int, map[string]int) {
	out, n, kinds := Redact([]byte(s))
	if n == 0 {
		return s, 0, nil
	}
	return string(out), n, kinds
}

// Contains reports whether b holds a credential Redact would replace.
func Contains(b []byte) bool { return len(find(b)) > 0 }

const placeholderPrefix = "[REDACTED:"

func apply(b []byte, ms []match, kinds map[string]int) []byte {
	out := make([]byte, 0, len(b))
	last := 0
	for _, m := range ms {
		out = append(out, b[last:m.start]...)
		out = append(out, placeholderPrefix...)
		out = append(out, m.kind...)
		out = append(out, ']')
		kinds[m.kind]++
		last = m.end
	}
	return append(out, b[last:]...)
}

// find returns non-overlapping matches sorted by start.
func find(b []byte) []match {
	ms := scan(b)
	if len(ms) == 0 {
		return nil
	}
	slices.SortFunc(ms, func(x, y match) int {
		if x.start != y.start {
			return x.start - y.start
		}
		if x.generic != y.generic {
			if x.generic {
				return 1
			}
			return -1
		}
		return y.end - x.end
	})
	// Drop overlaps. A generic match overlapping a specific one yields to
	// it, so GITHUB_TOKEN=ghp_... reports github_token; otherwise the
	// earlier (then longer) match wins.
	kept := ms[:0]
	for _, m := range ms {
		if len(kept) > 0 {
			p := &kept[len(kept)-1]
			if m.start < p.end {
				if p.generic && !m.generic {
					p.end = m.start // keep the generic prefix only if it stays non-empty
					if p.end <= p.start {
						kept = kept[:len(kept)-1]
					}
					kept = append(kept, m)
				} else if m.end > p.end && !m.generic && !p.generic {
					p.end = m.end
				}
				continue
			}
		}
		kept = append(kept, m)
	}
	// A generic match cut short by a specific one is dropped: a partial
	// value is no secret of its own.
	final := kept[:0]
	for i, m := range kept {
		if m.generic && i+1 < len(kept) && kept[i+1].start == m.end {
			continue
		}
		final = append(final, m)
	}
	return final
}

// Byte classes.
var (
	alnum       [256]bool // A-Z a-z 0-9
	upperDigit  [256]bool // A-Z 0-9
	tokenChars  [256]bool // A-Z a-z 0-9 _ -
	base64Chars [256]bool // A-Z a-z 0-9 + / =
	bearerChars [256]bool // A-Z a-z 0-9 - . _ ~ + / =
	identChars  [256]bool // A-Z a-z 0-9 _ - .
)

func init() {
	for c := 0; c < 256; c++ {
		isAl := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		alnum[c] = isAl
		upperDigit[c] = c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		tokenChars[c] = isAl || c == '_' || c == '-'
		base64Chars[c] = isAl || c == '+' || c == '/' || c == '='
		bearerChars[c] = isAl || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
		identChars[c] = isAl || c == '_' || c == '-' || c == '.'
	}
}

// run returns the length of the run of class bytes in b starting at i.
func run(b []byte, i int, class *[256]bool, limit int) int {
	j := i
	for j < len(b) && j-i < limit && class[b[j]] {
		j++
	}
	return j - i
}

func hasDigit(b []byte) bool {
	for _, c := range b {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

func hasLetter(b []byte) bool {
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// tokenRule is a prefix followed by a run of a byte class.
type tokenRule struct {
	kind      string
	prefixes  []string
	class     *[256]bool
	min, max  int  // bounds on the run after the prefix
	exact     bool // the run must end at min (a longer run is no match)
	boundary  bool // the byte before the prefix must not be alphanumeric
	valueOnly bool // replace only the run, keep the prefix (AccountKey=...)
	check     func(run []byte) bool
}

var tokenRules = []tokenRule{
	{kind: "aws_access_key", prefixes: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, class: &upperDigit, min: 16, exact: true, boundary: true},
	{kind: "gcp_api_key", prefixes: []string{"AIza"}, class: &tokenChars, min: 35, exact: true, boundary: true},
	{kind: "gcp_oauth_token", prefixes: []string{"ya29."}, class: &tokenChars, min: 20, boundary: true},
	{kind: "azure_key", prefixes: []string{"AccountKey=", "SharedAccessKey="}, class: &base64Chars, min: 40, valueOnly: true},
	{kind: "github_token", prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, class: &alnum, min: 36, boundary: true},
	{kind: "github_token", prefixes: []string{"github_pat_"}, class: &tokenChars, min: 22, boundary: true},
	{kind: "gitlab_token", prefixes: []string{"glpat-"}, class: &tokenChars, min: 20, boundary: true},
	{kind: "slack_token", prefixes: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xapp-"}, class: &tokenChars, min: 10, boundary: true, check: hasDigit},
	{kind: "slack_webhook", prefixes: []string{"hooks.slack.com/services/"}, class: &bearerChars, min: 10},
	{kind: "stripe_key", prefixes: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"}, class: &alnum, min: 16, boundary: true},
	{kind: "anthropic_key", prefixes: []string{"sk-ant-"}, class: &tokenChars, min: 20, boundary: true},
	{kind: "openai_key", prefixes: []string{"sk-"}, class: &tokenChars, min: 20, boundary: true, check: openAILike},
	{kind: "bearer_token", prefixes: []string{"Bearer ", "bearer "}, class: &bearerChars, min: 20, valueOnly: true, check: hasDigit},
	{kind: "stripe_key", prefixes: []string{"whsec_"}, class: &alnum, min: 24, boundary: true, check: mixed},
	{kind: "npm_token", prefixes: []string{"npm_"}, class: &alnum, min: 36, exact: true, boundary: true, check: mixed},
	{kind: "huggingface_token", prefixes: []string{"hf_"}, class: &alnum, min: 34, boundary: true, check: mixedCase},
	{kind: "pypi_token", prefixes: []string{"pypi-Ag"}, class: &tokenChars, min: 50, boundary: true},
	{kind: "digitalocean_token", prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, class: &alnum, min: 64, exact: true, boundary: true},
	{kind: "shopify_token", prefixes: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, class: &alnum, min: 32, exact: true, boundary: true},
	{kind: "gitlab_token", prefixes: []string{"gldt-", "glrt-", "glptt-", "glsoat-"}, class: &tokenChars, min: 20, boundary: true, check: hasDigit},
	{kind: "gcp_oauth_secret", prefixes: []string{"GOCSPX-"}, class: &tokenChars, min: 24, boundary: true},
}

// mixed reports a run with both letters and digits, as generated tokens
// have and identifiers after a prefix (npm_install_...) rarely do.
func mixed(r []byte) bool { return hasDigit(r) && hasLetter(r) }

// mixedCase reports a run with upper- and lower-case letters.
func mixedCase(r []byte) bool {
	upper, lower := false, false
	for _, c := range r {
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
	}
	return upper && lower
}

// openAILike rejects kebab-case words after "sk-" (sk-learn-something-long)
// and leaves Anthropic keys to their own rule.
func openAILike(r []byte) bool {
	if bytes.HasPrefix(r, []byte("ant-")) {
		return false
	}
	upper, lower, digit := false, false, false
	for _, c := range r {
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return digit && (upper || lower) && (upper || len(r) >= 32)
}

// at checks the rule for prefix p found at b[i:].
func (r *tokenRule) at(b []byte, i int, p string) (match, bool) {
	off := i + len(p)
	if r.boundary && i > 0 && alnum[b[i-1]] {
		return match{}, false
	}
	limit := r.max
	if limit == 0 {
		limit = 1 << 16
	}
	if r.exact {
		limit = r.min + 1
	}
	n := run(b, off, r.class, limit)
	if n < r.min || r.exact && n != r.min {
		return match{}, false
	}
	if r.check != nil && !r.check(b[off:off+n]) {
		return match{}, false
	}
	start := i
	if r.valueOnly {
		start = off
	}
	return match{start: start, end: off + n, kind: r.kind}, true
}

var (
	beginMark = []byte("-----BEGIN ")
	dashes    = []byte("-----")
	endMark   = []byte("-----END ")
)

// privateKeyAt redacts a PEM private key block, raw or JSON-escaped
// (newlines as \n), from BEGIN to the end of the END line; a block whose END
// is missing (truncated output) is redacted to the end of its base64 run.
func privateKeyAt(b []byte, i int) (match, bool) {
	off := i + len(beginMark)
	// The label: "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY", ...
	j := off
	for j < len(b) && j-off < 40 && (b[j] >= 'A' && b[j] <= 'Z' || b[j] == ' ') {
		j++
	}
	if !bytes.HasSuffix(b[off:j], []byte("PRIVATE KEY")) && !bytes.HasSuffix(b[off:j], []byte("PRIVATE KEY BLOCK")) {
		return match{}, false
	}
	if !bytes.HasPrefix(b[j:], dashes) {
		return match{}, false
	}
	j += len(dashes)
	end := -1
	if k := bytes.Index(b[j:], endMark); k >= 0 && k < 1<<16 {
		k += j + len(endMark)
		if e := bytes.Index(b[k:], dashes); e >= 0 && e < 40 {
			end = k + e + len(dashes)
		}
	}
	if end < 0 {
		// Truncated: swallow base64, whitespace and escaped newlines.
		end = j
		for end < len(b) {
			c := b[end]
			if base64Chars[c] || c == '\n' || c == '\r' || c == ' ' || c == '\t' {
				end++
			} else if c == '\\' && end+1 < len(b) && (b[end+1] == 'n' || b[end+1] == 'r') {
				end += 2
			} else {
				break
			}
		}
	}
	return match{start: i, end: end, kind: "private_key"}, true
}

// jwtAt finds eyJ<header>.eyJ<payload>.<signature>: both parts are
// base64url JSON objects, so they start with "eyJ".
func jwtAt(b []byte, i int) (match, bool) {
	if i > 0 && tokenChars[b[i-1]] {
		return match{}, false
	}
	h := run(b, i, &alnumURL, 8192)
	p := i + h
	if h < 10 || p+4 >= len(b) || b[p] != '.' || !bytes.HasPrefix(b[p+1:], []byte("eyJ")) {
		return match{}, false
	}
	pl := run(b, p+1, &alnumURL, 1<<16)
	q := p + 1 + pl
	if pl < 10 || q >= len(b) || b[q] != '.' {
		return match{}, false
	}
	s := run(b, q+1, &alnumURL, 8192)
	return match{start: i, end: q + 1 + s, kind: "jwt"}, true
}

var alnumURL [256]bool // base64url: A-Z a-z 0-9 - _

func init() {
	for c := 0; c < 256; c++ {
		alnumURL[c] = alnum[c] || c == '-' || c == '_'
	}
}

// azureSecretAt finds, at "Q~", Entra ID client secrets: three characters,
// a digit, "Q~", then 31 to 34 characters of [A-Za-z0-9_~.-].
func azureSecretAt(b []byte, i int) (match, bool) {
	start := i - 4
	if start < 0 || b[i-1] < '0' || b[i-1] > '9' {
		return match{}, false
	}
	for k := start; k < i-1; k++ {
		if !azureChars[b[k]] {
			return match{}, false
		}
	}
	if start > 0 && azureChars[b[start-1]] {
		return match{}, false
	}
	n := run(b, i+2, &azureChars, 40)
	if n < 31 || n > 34 {
		return match{}, false
	}
	return match{start: start, end: i + 2 + n, kind: "azure_key"}, true
}

var azureChars [256]bool

func init() {
	for c := 0; c < 256; c++ {
		azureChars[c] = alnum[c] || c == '_' || c == '~' || c == '.' || c == '-'
	}
}

// urlPasswordAt finds, at "://", scheme://user:password@host and redacts the
// password only, so the URL still says where it pointed.
func urlPasswordAt(b []byte, i int) (match, bool) {
	off := i + 3
	if i == 0 || !alnum[b[i-1]] {
		return match{}, false
	}
	// userinfo ends at '@' before any '/', whitespace, quote or '<'.
	colon, at := -1, -1
	for j := off; j < len(b) && j-off < 512; j++ {
		c := b[j]
		if c == '@' {
			// The last '@' before the host wins (a password should hold
			// '@' only percent-encoded, but logs are not always careful).
			at = j
			continue
		}
		if c == ':' && colon < 0 && at < 0 {
			colon = j
			continue
		}
		if c == '/' || c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == '`' {
			break
		}
	}
	if colon < 0 || at < 0 || at < colon+2 {
		return match{}, false
	}
	// The user may be empty (redis://:PASSWORD@host); a password that
	// repeats it (postgres://postgres:postgres@...) or is a stand-in
	// (user:pass:word@example.com, a validator's test case) stays.
	user, pw := b[off:colon], b[colon+1:at]
	if bytes.Equal(user, pw) || !secretValue(pw, true) {
		return match{}, false
	}
	// Host after '@' must look like one.
	if at+1 >= len(b) || !alnum[b[at+1]] && b[at+1] != '[' {
		return match{}, false
	}
	// Generic: a token with a kind of its own in the password place
	// (https://x-access-token:ghp_...@github.com) reports that kind.
	return match{start: colon + 1, end: at, kind: "url_password", generic: true}, true
}
