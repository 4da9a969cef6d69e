package redact

import (
	"bytes"
	"io"
	"maps"

	"github.com/memex-archive/memex"
)

// Rule is what redaction changes and how it is marked, as the CLI's help
// states it.
const Rule = `Credentials are replaced before anything is stored. Tokens with a provider's
format go wherever they appear: AWS key ids, GitHub, GitLab, Slack, Stripe (whsec_
included), OpenAI, Anthropic, Google, npm, Hugging Face, SendGrid, PyPI,
DigitalOcean and Shopify tokens, JWTs, private key blocks. Values known by their
place go unless they read as a stand-in: the value of a key naming a secret
(KEY=value, key = value, key: value, "key": "value"), a URL's password, Basic
credentials (Authorization: Basic, docker's "auth", curl -u), a Kubernetes Secret's
data. A stand-in is a placeholder word (secret, password, example, your-..., also
as s3cr3t), letters of one case only, a sequence (abcd1234), a file path, a low-
entropy value or one too short (token=abc123 stays). Each replaced credential becomes
[REDACTED:kind]; the entry's "redacted" field counts them and its summary line
ends "· N secrets redacted". --no-redact stores the content as it is.`

// Entry is memex's write policy for one entry, the one function every
// write path applies before the archive sees a byte. It returns e with
// credentials replaced in its text fields (Input, Summary, AgentSummary and
// the values of Attrs; IDs, names and aliases are left alone) and
// e.Redacted raised by the number of those replacements, and body wrapped
// in a Reader that yields the body redacted, streamed in bounded memory.
//
// The body's replacements are known only once it is read to its end: the
// Reader's Redacted method counts them. archive.Store.Add reads a body that
// has that method to EOF, then adds its count to the stored entry's
// Redacted, so a caller that hands the Reader to Add has nothing more to
// do. A caller that reads the Reader itself (to spool or buffer the body)
// adds r.Redacted() to e.Redacted, or calls Bytes instead. The Reader's
// Kinds counts every replacement by kind, the fields' included.
//
// Redaction is idempotent: an entry that went through Entry once gains
// nothing from a second pass (its count grows by 0). e's Attrs map is not
// modified; a changed one is copied. A nil body reads as empty.
func Entry(e memex.Entry, body io.Reader) (memex.Entry, *Reader) {
	var kinds map[string]int
	e, kinds = fields(e)
	if body == nil {
		body = bytes.NewReader(nil)
	}
	r := NewReader(body)
	r.Kinds = kinds
	return e, r
}

// Bytes is Entry for a body held in memory: it returns the redacted body
// (body itself when nothing was found), e with Redacted counting every
// replacement, the body's included, and the replacements by kind.
func Bytes(e memex.Entry, body []byte) (memex.Entry, []byte, map[string]int) {
	e, kinds := fields(e)
	out, n, bk := Redact(body)
	e.Redacted += n
	return e, out, merge(kinds, bk)
}

// fields redacts e's text fields and adds the count to e.Redacted.
func fields(e memex.Entry) (memex.Entry, map[string]int) {
	var kinds map[string]int
	field := func(s string) string {
		out, n, ks := String(s)
		e.Redacted += n
		kinds = merge(kinds, ks)
		return out
	}
	e.Input = field(e.Input)
	e.Summary = field(e.Summary)
	e.AgentSummary = field(e.AgentSummary)
	var attrs map[string]string
	for k, v := range e.Attrs {
		out := field(v)
		if out == v {
			continue
		}
		if attrs == nil {
			attrs = maps.Clone(e.Attrs)
		}
		attrs[k] = out
	}
	if attrs != nil {
		e.Attrs = attrs
	}
	return e, kinds
}

func merge(dst, src map[string]int) map[string]int {
	for k, v := range src {
		if dst == nil {
			dst = make(map[string]int, len(src))
		}
		dst[k] += v
	}
	return dst
}
