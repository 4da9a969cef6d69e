package redact

import (
	"bytes"
	"math"
)

// The value rules decide, for a detector that found a value by its place
// (the value of a secret-named key, a URL's password, curl -u's password)
// rather than by a provider's format, whether the value is a credential or
// a stand-in: the fixtures, documentation and test code that fill coding
// transcripts (SECRET_KEY='secret', password='password',
// postgres://postgres:postgres@localhost, http://user:pass:word@example.com)
// must stay readable, and two test values must never become one. As
// gitleaks and trufflehog do, a value must clear a placeholder list and an
// entropy threshold; provider-format tokens (ghp_..., AKIA...) skip these
// rules, their format being evidence enough.

// placeholders are whole values (lower-cased) that stand for a secret.
var placeholders = map[string]bool{
	"true": true, "false": true, "null": true, "none": true, "nil": true, "undefined": true,
	"required": true, "optional": true, "string": true, "str": true, "bytes": true, "redacted": true,
	"hidden": true, "masked": true, "abc123": true, "123456": true, "1234567": true, "12345678": true,
	"123456789": true, "qwerty": true, "letmein": true, "admin": true, "root": true, "guest": true,
	"user": true, "username": true, "default": true, "postgres": true, "mysql": true, "redis": true,
	"hunter2": true, "foobar": true, "foo": true, "bar": true, "baz": true, "value": true, "key": true,
}

// placeholderWords are stand-in words: a value holding one (after undoing
// leetspeak, so s3cr3t and p@ssw0rd count) is a fixture, not a credential.
var placeholderWords = []string{
	"pass", "secret", "password", "passwd", "changeme", "change_me", "change-me", "example",
	"sample", "dummy", "placeholder", "your", "fake", "mock", "test", "demo", "insert", "replace",
	"xxx", "***", "...", "todo", "fixme", "notasecret", "not-a-secret",
}

// secretValue reports whether v, found at the place of a secret, is one.
// password relaxes the length and entropy floors for values of password
// keys, where people's own passwords are short and of few symbols.
func secretValue(v []byte, password bool) bool {
	minLen := 8
	if password {
		minLen = 6
	}
	if len(v) < minLen || len(v) > 4096 {
		return false
	}
	if !hasAlnum(v) || allDigits(v) {
		return false
	}
	switch v[0] {
	case '$', '%', '<', '{', '*', '[', '(':
		// A variable, template or markup: the secret is elsewhere.
		return false
	}
	if bytes.Contains(v, []byte("{{")) || bytes.Contains(v, []byte("${")) {
		return false
	}
	var low [64]byte
	l := low[:0]
	if len(v) <= len(low) {
		for _, c := range v {
			l = append(l, deleet(c))
		}
		if placeholders[string(l)] {
			return false
		}
		for _, w := range placeholderWords {
			if bytes.Contains(l, []byte(w)) {
				return false
			}
		}
	}
	if pathLike(v) || oneClass(v) || sequential(v) {
		return false
	}
	floor := 3.0
	if password {
		floor = 2.5
	}
	return entropy(v) >= math.Min(floor, math.Log2(float64(len(v)))-0.5)
}

// deleet lower-cases c and undoes the leetspeak of placeholder passwords.
func deleet(c byte) byte {
	switch c {
	case '0':
		return 'o'
	case '1':
		return 'i'
	case '3':
		return 'e'
	case '4', '@':
		return 'a'
	case '5', '$':
		return 's'
	case '7':
		return 't'
	}
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func allDigits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// oneClass reports a value of letters of one case only (with separators):
// words, not a generated secret (new_password, wrongpassword, correct horse).
func oneClass(v []byte) bool {
	lower, upper := false, false
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c == '_' || c == '-' || c == '.' || c == ' ':
		default:
			return false
		}
	}
	return lower != upper
}

// sequential reports a value whose longest run of consecutive characters
// (abcd, 1234) is half of it or more: abcd1234, 12345678a, 0123456789abcdef.
func sequential(v []byte) bool {
	best, run := 1, 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1]+1 {
			run++
			best = max(best, run)
		} else {
			run = 1
		}
	}
	return best*2 >= len(v)
}

// pathLike reports a file path or file name: a credential's location
// (GOOGLE_APPLICATION_CREDENTIALS=/app/key.json), not the credential.
func pathLike(v []byte) bool {
	switch {
	case v[0] == '/' || v[0] == '~' || bytes.HasPrefix(v, []byte("./")) || bytes.HasPrefix(v, []byte("../")):
		return true
	case len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/'):
		return true // C:\Users\...
	}
	dot := bytes.LastIndexByte(v, '.')
	if dot <= 0 || len(v)-dot > 6 {
		return false
	}
	switch string(bytes.ToLower(v[dot+1:])) {
	case "json", "yml", "yaml", "pem", "key", "txt", "p12", "pfx", "env", "cfg", "ini", "conf", "toml", "crt", "cer", "der", "jks", "keystore", "gpg", "asc", "py", "js", "ts", "go", "sh":
		return true
	}
	return false
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var freq [256]int
	for _, c := range v {
		freq[c]++
	}
	n := float64(len(v))
	h := 0.0
	for _, f := range freq {
		if f > 0 {
			p := float64(f) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
