package redact

import (
	"bytes"
)

// secretWords name a secret when they occur in a (lower-cased) key.
var secretWords = []string{
	"password", "passwd", "passphrase", "pass",
	"secret", "token",
	"api_key", "apikey", "api-key", "access_key", "accesskey", "private_key", "privatekey",
	"auth_key", "signing_key", "encryption_key", "master_key", "session_key",
	"credential", "authorization",
}

// excludedWords mark keys that name something about a secret rather than
// the secret itself (token_count, password_field, max_tokens, secret_name).
var excludedWords = []string{
	"count", "length", "len", "size", "type", "field", "limit", "max", "min",
	"budget", "usage", "file", "path", "dir", "name", "url", "uri", "endpoint",
	"expir", "ttl", "_at", "time", "policy", "prompt", "input", "output",
	"cache", "mode", "enabled", "required", "placeholder", "label", "hint",
	"prefix", "format", "tokeniz", "id", "kind", "index", "bypass", "compass",
	"passage", "passthrough", "passenger", "encompass", "class", "pass_",
	"strength", "rule", "valid", "hash", "salt", "summary", "display", "show",
}

// passComponent: "pass" only counts as a whole component (DB_PASS,
// pass=...), never inside a word (compass, passing).
func secretKey(key []byte) (kind string, ok bool) {
	if len(key) < 3 || len(key) > 64 {
		return "", false
	}
	var buf [64]byte
	low := buf[:len(key)]
	for i, c := range key {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	// Split camelCase into snake for component checks: apiKey -> api_key.
	var sbuf [128]byte
	snake := sbuf[:0]
	for i, c := range key {
		if c >= 'A' && c <= 'Z' && i > 0 && key[i-1] >= 'a' && key[i-1] <= 'z' {
			snake = append(snake, '_')
		}
		snake = append(snake, low[i])
	}
	for _, w := range excludedWords {
		if w == "id" || w == "_at" {
			// Only as a trailing component: client_id, token_id, expires_at.
			if bytes.HasSuffix(snake, []byte("_"+trimUnderscore(w))) || bytes.HasSuffix(snake, []byte("-"+trimUnderscore(w))) {
				return "", false
			}
			continue
		}
		if bytes.Contains(snake, []byte(w)) {
			return "", false
		}
	}
	switch {
	case bytes.Contains(snake, []byte("aws_secret")):
		return "aws_secret_key", true
	case bytes.Contains(snake, []byte("aws_session_token")):
		return "aws_session_token", true
	}
	for _, w := range secretWords {
		if w == "pass" {
			if componentMatch(snake, "pass") || componentMatch(snake, "pwd") {
				return "password", true
			}
			continue
		}
		if bytes.Contains(snake, []byte(w)) {
			return kindOf(w), true
		}
	}
	return "", false
}

func trimUnderscore(s string) string {
	if len(s) > 0 && s[0] == '_' {
		return s[1:]
	}
	return s
}

func componentMatch(s []byte, w string) bool {
	for off := 0; ; {
		i := bytes.Index(s[off:], []byte(w))
		if i < 0 {
			return false
		}
		i += off
		j := i + len(w)
		before := i == 0 || !alnum[s[i-1]]
		after := j == len(s) || !alnum[s[j]]
		if before && after {
			return true
		}
		off = i + 1
	}
}

func kindOf(w string) string {
	switch w {
	case "password", "passwd", "passphrase":
		return "password"
	case "secret":
		return "secret"
	case "token":
		return "token"
	case "credential":
		return "credential"
	case "authorization":
		return "authorization"
	case "private_key", "privatekey":
		return "private_key"
	default:
		return "api_key"
	}
}

// assignmentAt examines the identifier around a stem found at b[i:] and,
// if it names a secret, the value assigned to it: KEY=value,
// KEY: "value", "key": "value" and the JSON-escaped \"key\": \"value\".
// Unquoted values count only directly after '=' (env dumps,
// --flag=value, query strings), so code such as `password = getpass()` or
// `token: str` is left alone. seen is the end of the identifier examined
// last, so a key with several stems is looked at once.
func assignmentAt(b []byte, i, n int, seen *int) (match, bool) {
	s, e := i, i+n
	for s > 0 && identChars[b[s-1]] && i-s < 64 {
		s--
	}
	for e < len(b) && identChars[b[e]] && e-i < 64 {
		e++
	}
	if e == *seen {
		return match{}, false
	}
	*seen = e
	kind, ok := secretKey(bytes.TrimLeft(b[s:e], "-."))
	if !ok {
		return match{}, false
	}
	return assignedValue(b, s, e, kind)
}

// assignedValue parses the separator and value after the key b[s:e].
func assignedValue(b []byte, s, e int, kind string) (match, bool) {
	j := e
	keyQuoted := false
	if j < len(b) && (b[j] == '"' || b[j] == '\'') {
		keyQuoted = true
		j++
	} else if j+1 < len(b) && b[j] == '\\' && b[j+1] == '"' {
		keyQuoted = true
		j += 2
	}
	spaceBefore := false
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') && j-e < 8 {
		spaceBefore = true
		j++
	}
	if j >= len(b) {
		return match{}, false
	}
	sep := b[j]
	switch {
	case sep == '=':
		j++
	case sep == ':' && j+1 < len(b) && b[j+1] == '=':
		sep = '='
		j += 2
	case sep == ':':
		j++
	default:
		return match{}, false
	}
	if sep == '=' && j < len(b) && b[j] == '=' {
		return match{}, false // a comparison (==), not an assignment
	}
	spaceAfter := false
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') && j-e < 16 {
		spaceAfter = true
		j++
	}
	if j >= len(b) {
		return match{}, false
	}
	// Quoted value.
	var q []byte
	switch {
	case b[j] == '"' || b[j] == '\'':
		q = b[j : j+1]
	case b[j] == '\\' && j+1 < len(b) && b[j+1] == '"':
		q = b[j : j+2]
	}
	if q != nil {
		vs := j + len(q)
		ve := vs
		for ve < len(b) && ve-vs < 4096 {
			c := b[ve]
			if c == '\n' {
				return match{}, false
			}
			if len(q) == 1 && c == '\\' && q[0] == '"' {
				ve += 2
				continue
			}
			if bytes.HasPrefix(b[ve:], q) {
				break
			}
			ve++
		}
		if ve >= len(b) || !bytes.HasPrefix(b[ve:], q) || ve-vs >= 4096 {
			return match{}, false
		}
		v := b[vs:ve]
		// A value with whitespace or an escaped newline in it is prose or
		// code, not a credential.
		if bytes.ContainsAny(v, " \t") || bytes.Contains(v, []byte(`\n`)) || !secretValue(v, kind == "password") {
			return match{}, false
		}
		return match{start: vs, end: ve, kind: kind, generic: true}, true
	}
	var vs, ve int
	switch {
	case sep == '=' && !spaceBefore && !spaceAfter && !keyQuoted:
		// KEY=value: env dumps, --flag=value, query strings.
		vs, ve = j, j
		for ve < len(b) && ve-vs < 4096 {
			c := b[ve]
			if c <= ' ' || c == '"' || c == '\'' || c == ',' || c == ';' || c == '&' || c == ')' || c == '}' || c == '`' || c == '\\' || c == '<' || c == '>' {
				break
			}
			ve++
		}
	case !keyQuoted && lineStart(b, s):
		// A key that starts its line with a value that ends it: INI and
		// ~/.aws/credentials (key = value), YAML (key: value), .env
		// files with spaces. One word only: "Password: the one you
		// chose" is prose.
		vs = j
		ve = vs
		for ve < len(b) && b[ve] != '\n' && b[ve] != '\r' && ve-vs < 4096 {
			ve++
		}
		if c := bytes.IndexAny(b[vs:ve], " \t"); c >= 0 {
			if rest := bytes.TrimLeft(b[vs+c:ve], " \t"); len(rest) > 0 && rest[0] != '#' {
				return match{}, false
			}
			ve = vs + c
		}
		// A value ending in ',' or ';' is code (a JavaScript object
		// literal, a statement), not a configuration file's value; so is
		// a dotted name (config.apiKey).
		if ve > vs && (b[ve-1] == ',' || b[ve-1] == ';') || dottedName(b[vs:ve]) {
			return match{}, false
		}
	case sep == ':' && spaceAfter && !keyQuoted && s > 0 && (b[s-1] == '\'' || b[s-1] == '"'):
		// A header given to curl or a client: -H 'X-Api-Key: value'.
		q := b[s-1]
		vs = j
		ve = vs
		for ve < len(b) && b[ve] != q && b[ve] != '\n' && b[ve] != ' ' && ve-vs < 4096 {
			ve++
		}
		if ve >= len(b) || b[ve] != q {
			return match{}, false
		}
	default:
		return match{}, false
	}
	v := b[vs:ve]
	if bytes.ContainsAny(v, "([") || codeIdentifier(v) || !secretValue(v, kind == "password") {
		return match{}, false
	}
	return match{start: vs, end: ve, kind: kind, generic: true}, true
}

// lineStart reports whether the key at b[s:] begins its line, after
// indentation, a YAML list dash or "export ".
func lineStart(b []byte, s int) bool {
	i := s
	skip := func() {
		for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t') {
			i--
		}
	}
	skip()
	switch {
	case i > 0 && b[i-1] == '-':
		i--
		skip()
	case i >= 6 && string(b[i-6:i]) == "export":
		i -= 6
		skip()
	}
	return i == 0 || b[i-1] == '\n'
}

func hasAlnum(v []byte) bool {
	for _, c := range v {
		if alnum[c] {
			return true
		}
	}
	return false
}

// codeIdentifier reports whether an unquoted value reads as a name in code
// (show_tokens=show_tokens, password=self.password) rather than a literal:
// letters, underscores and dots only, no digit.
func codeIdentifier(v []byte) bool {
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// dottedName reports a.b or a.b.c made of identifiers: a member access in
// code, not a literal.
func dottedName(v []byte) bool {
	parts := bytes.Split(v, []byte("."))
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || p[0] >= '0' && p[0] <= '9' {
			return false
		}
		for _, c := range p {
			if !alnum[c] && c != '_' {
				return false
			}
		}
	}
	return true
}
