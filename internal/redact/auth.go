package redact

import (
	"bytes"
	"encoding/base64"
)

// Detectors whose secret is told by its place in a known format rather
// than by a token prefix: SendGrid keys, HTTP Basic credentials (the
// Authorization header, docker's config.json "auth", curl -u), and the
// values of a Kubernetes Secret.

// sendgridAt finds SG.<22>.<43> at "SG.".
func sendgridAt(b []byte, i int) (match, bool) {
	if i > 0 && tokenChars[b[i-1]] {
		return match{}, false
	}
	off := i + 3
	n := run(b, off, &tokenChars, 23)
	if n != 22 || off+n >= len(b) || b[off+n] != '.' {
		return match{}, false
	}
	m := run(b, off+n+1, &tokenChars, 44)
	if m != 43 {
		return match{}, false
	}
	return match{start: i, end: off + n + 1 + m, kind: "sendgrid_key"}, true
}

// basicCredentials reports whether base64 text v decodes to user:password
// with a password that clears the value rules (dXNlcjpwYXNz, user:pass,
// does not).
func basicCredentials(v []byte) bool {
	if len(v) < 8 || len(v) > 1024 {
		return false
	}
	dec := make([]byte, base64.StdEncoding.DecodedLen(len(v)))
	n, err := base64.StdEncoding.Decode(dec, v)
	if err != nil {
		if n, err = base64.RawStdEncoding.Decode(dec, bytes.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	dec = dec[:n]
	colon := bytes.IndexByte(dec, ':')
	if colon < 0 {
		return false
	}
	for _, c := range dec {
		if c < ' ' || c > '~' {
			return false
		}
	}
	user, pw := dec[:colon], dec[colon+1:]
	return !bytes.Equal(user, pw) && secretValue(pw, true)
}

// basicAuthAt finds the credentials of "Authorization: Basic <base64>" at
// "Basic ".
func basicAuthAt(b []byte, i int) (match, bool) {
	lo := max(0, i-24)
	if !bytes.Contains(bytes.ToLower(b[lo:i]), []byte("authorization")) {
		return match{}, false
	}
	off := i + len("Basic ")
	n := run(b, off, &base64Chars, 1024)
	if !basicCredentials(b[off : off+n]) {
		return match{}, false
	}
	return match{start: off, end: off + n, kind: "basic_auth"}, true
}

// dockerAuthAt finds docker's config.json credentials, "auth": "<base64 of
// user:password>", raw or JSON-escaped, at `"auth`.
func dockerAuthAt(b []byte, i int) (match, bool) {
	k, ok := quote(b, i+len(`"auth`))
	if !ok {
		return match{}, false
	}
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	if k >= len(b) || b[k] != ':' {
		return match{}, false
	}
	k++
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	if k, ok = quote(b, k); !ok {
		return match{}, false
	}
	n := run(b, k, &base64Chars, 1024)
	if !basicCredentials(b[k : k+n]) {
		return match{}, false
	}
	return match{start: k, end: k + n, kind: "basic_auth"}, true
}

// quote returns the index past a double quote, raw or JSON-escaped (\"),
// at b[k].
func quote(b []byte, k int) (int, bool) {
	switch {
	case k < len(b) && b[k] == '"':
		return k + 1, true
	case k+1 < len(b) && b[k] == '\\' && b[k+1] == '"':
		return k + 2, true
	}
	return k, false
}

// curlUserAt finds the password of curl's -u/--user user:password at "-u "
// or "--user" on a line that runs curl.
func curlUserAt(b []byte, i, n int) (match, bool) {
	lo := i
	for lo > 0 && b[lo-1] != '\n' && i-lo < 512 {
		lo--
	}
	if !bytes.Contains(b[lo:i], []byte("curl")) {
		return match{}, false
	}
	j := i + n
	if n == len("--user") {
		if j >= len(b) || b[j] != ' ' && b[j] != '=' {
			return match{}, false
		}
		j++
	}
	for j < len(b) && b[j] == ' ' {
		j++
	}
	var q byte
	if j < len(b) && (b[j] == '\'' || b[j] == '"') {
		q = b[j]
		j++
	}
	s := j
	for j < len(b) && j-s < 512 {
		c := b[j]
		if q != 0 && c == q || q == 0 && (c <= ' ' || c == '\'' || c == '"') || c == '\n' {
			break
		}
		j++
	}
	cred := b[s:j]
	colon := bytes.IndexByte(cred, ':')
	if colon <= 0 {
		return match{}, false
	}
	user, pw := cred[:colon], cred[colon+1:]
	if bytes.Equal(user, pw) || !secretValue(pw, true) {
		return match{}, false
	}
	return match{start: s + colon + 1, end: j, kind: "basic_auth"}, true
}

// k8sSecretAt, at "kind: Secret" in YAML, finds the YAML document around
// it (between "---" lines) and replaces each value under its data: and
// stringData: keys: every one of them is a secret's content (base64 under
// data:, plain under stringData:). kubectl prints data: before kind:, so
// the document is searched on both sides.
func k8sSecretAt(b []byte, i int, ms *[]match) {
	end := i + len("kind: Secret")
	if end < len(b) && b[end] != '\n' && b[end] != '\r' && b[end] != ' ' {
		return // kind: SecretStore, ...
	}
	lo, hi := i, end
	for lo > 0 && i-lo < 64<<10 {
		if b[lo-1] == '\n' && bytes.HasPrefix(b[lo:], []byte("---")) {
			break
		}
		lo--
	}
	if k := bytes.Index(b[end:min(len(b), end+64<<10)], []byte("\n---")); k >= 0 {
		hi = end + k
	} else {
		hi = min(len(b), end+64<<10)
	}
	doc := b[lo:hi]
	for off := 0; off < len(doc); {
		nl := bytes.IndexByte(doc[off:], '\n')
		line := doc[off:]
		if nl >= 0 {
			line = doc[off : off+nl]
		}
		next := off + len(line) + 1
		t := bytes.TrimLeft(line, " ")
		indent := len(line) - len(t)
		t = bytes.TrimRight(t, " \r")
		if bytes.Equal(t, []byte("data:")) || bytes.Equal(t, []byte("stringData:")) {
			decode := t[0] == 'd'
			next = secretValues(doc, next, indent, decode, lo, ms)
		}
		off = next
	}
}

// secretValues replaces the values of the "key: value" lines indented
// deeper than indent from doc[off:], and returns where they end.
func secretValues(doc []byte, off, indent int, decode bool, base int, ms *[]match) int {
	for off < len(doc) {
		nl := bytes.IndexByte(doc[off:], '\n')
		line := doc[off:]
		if nl >= 0 {
			line = doc[off : off+nl]
		}
		t := bytes.TrimLeft(line, " ")
		if len(bytes.TrimSpace(t)) == 0 {
			off += len(line) + 1
			continue
		}
		if len(line)-len(t) <= indent {
			return off
		}
		c := bytes.Index(t, []byte(": "))
		if c > 0 {
			vs := off + len(line) - len(t) + c + 2
			v := bytes.TrimRight(doc[vs:off+len(line)], " \r")
			v = bytes.Trim(v, `"'`)
			if len(v) > 0 {
				vs = bytes.Index(doc[vs:], v) + vs
				plain := v
				if decode {
					if d, err := base64.StdEncoding.DecodeString(string(v)); err == nil {
						plain = d
					}
				}
				if bytes.HasPrefix(plain, []byte("-----BEGIN")) || secretValue(plain, true) {
					*ms = append(*ms, match{start: base + vs, end: base + vs + len(v), kind: "k8s_secret"})
				}
			}
		}
		off += len(line) + 1
	}
	return off
}
