package index

import "bytes"

// definitions are the identifiers an entry defines, the terms of its fDef
// field: a line of code or tool output with `def NAME`, `func NAME`, `func (r T) NAME`,
// `class NAME`, `function NAME`, `fn NAME`, `interface NAME`, `struct
// NAME`, `enum NAME` or `trait NAME` gives the term "name" (lower-cased).
// A search for the identifier puts its definition before the places that
// only use it (see wordQuery).
// defKeywords introduce a definition in the common languages.
var defKeywords = [][]byte{
	[]byte("def "), []byte("func "), []byte("class "), []byte("function "), []byte("fn "),
	[]byte("interface "), []byte("struct "), []byte("enum "), []byte("trait "),
}

// maxDefs bounds the definitions one entry records.
const maxDefs = 256

// definitions returns the identifiers text defines, lower-cased, each once.
func definitions(text []byte) []string {
	var out []string
	seen := map[string]bool{}
	for _, kw := range defKeywords {
		rest, off := text, 0
		for len(out) < maxDefs {
			k := bytes.Index(rest, kw)
			if k < 0 {
				break
			}
			at := off + k
			rest, off = rest[k+len(kw):], at+len(kw)
			if at > 0 && isIdentByte(text[at-1]) {
				continue // "undef ", "myfunc "
			}
			name := defName(text[at+len(kw):])
			if len(name) == 0 || len(name) > maxTermBytes {
				continue
			}
			if n := string(bytes.ToLower(name)); !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// defName is the identifier after a definition keyword, skipping a Go
// method's receiver and spaces.
func defName(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i < len(b) && b[i] == '(' { // func (r *T) Name
		k := bytes.IndexByte(b[i:], ')')
		if k < 0 || k > 80 {
			return nil
		}
		i += k + 1
		for i < len(b) && b[i] == ' ' {
			i++
		}
	}
	j := i
	for j < len(b) && isIdentByte(b[j]) {
		j++
	}
	if j == i || b[i] >= '0' && b[i] <= '9' {
		return nil
	}
	return b[i:j]
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isIdent reports whether s could be a defined identifier.
func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}
