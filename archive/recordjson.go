package archive

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/memex-archive/memex"
)

// appendRecordJSON appends the JSON of sr to dst: byte for byte what
// encoding/json's Encoder, HTML escaping off, writes for it (without the
// newline), which took 5% of an import's CPU on the one goroutine that
// writes (TestRecordJSONAsEncodingJSON compares the two on random
// entries; TestRecordJSONKnowsEveryField fails when memex.Entry gains a
// field this does not write). The fields come in encoding/json's order:
// the entry's, the ID and hash it shadows left out, then storedRecord's.
func appendRecordJSON(dst []byte, sr *storedRecord) ([]byte, error) {
	e := &sr.Entry
	dst = append(dst, '{')
	first := true
	name := func(n string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, n...)
		dst = append(dst, '"', ':')
	}
	str := func(n, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		name(n)
		dst = appendJSONString(dst, v)
	}
	str("project", e.Project, true)
	str("session", e.Session, true)
	str("agent", e.Agent, true)
	str("kind", string(e.Kind), false)
	str("tool", e.Tool, true)
	str("input", e.Input, true)
	if e.Exit != nil {
		name("exit")
		dst = strconv.AppendInt(dst, int64(*e.Exit), 10)
	}
	created, err := e.Created.MarshalJSON()
	if err != nil {
		return nil, err
	}
	name("created")
	dst = append(dst, created...)
	name("bytes")
	dst = strconv.AppendInt(dst, e.Bytes, 10)
	name("lines")
	dst = strconv.AppendInt(dst, e.Lines, 10)
	name("tokens")
	dst = strconv.AppendInt(dst, e.Tokens, 10)
	if e.TokensEstimated {
		name("tokens_estimated")
		dst = append(dst, "true"...)
	}
	str("summary", e.Summary, false)
	str("agent_summary", e.AgentSummary, true)
	if len(e.Aliases) > 0 {
		name("aliases")
		dst = append(dst, '[')
		for i, a := range e.Aliases {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, a)
		}
		dst = append(dst, ']')
	}
	if len(e.Attrs) > 0 {
		name("attrs")
		dst = append(dst, '{')
		for i, k := range slices.Sorted(maps.Keys(e.Attrs)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendJSONString(dst, e.Attrs[k])
		}
		dst = append(dst, '}')
	}
	if e.Redacted != 0 {
		name("redacted")
		dst = strconv.AppendInt(dst, int64(e.Redacted), 10)
	}
	if len(sr.ID) > 0 {
		// Never written (see storedRecord); here for completeness.
		name("id")
		dst = append(dst, sr.ID...)
	}
	if sr.Body != nil {
		name("body")
		dst = appendJSONString(dst, sr.Body.String())
	}
	str("hash", sr.Hash, true)
	return append(dst, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json does with HTML
// escaping off: '"', '\\' and control characters escaped, invalid UTF-8
// as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AsRead returns e, as Add returned it, as the store reads it back from
// its record (Session, Get), and whether it can tell: the record
// (appendRecordJSON) leaves out an empty alias list or attribute map and
// turns invalid UTF-8 into U+FFFD, which AsRead does not redo: for an
// entry with invalid UTF-8 in a string it answers false. A caller that
// holds what it added (an import distilling its sessions) passes the
// entries through AsRead to SessionWith.
func AsRead(e memex.Entry) (memex.Entry, bool) {
	for _, s := range []string{e.Project, e.Session, e.Agent, string(e.Kind), e.Tool, e.Input, e.Summary, e.AgentSummary, e.Hash} {
		if !utf8.ValidString(s) {
			return e, false
		}
	}
	for _, a := range e.Aliases {
		if !utf8.ValidString(a) {
			return e, false
		}
	}
	for k, v := range e.Attrs {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return e, false
		}
	}
	if len(e.Aliases) == 0 {
		e.Aliases = nil
	}
	if len(e.Attrs) == 0 {
		e.Attrs = nil
	}
	return e, true
}
