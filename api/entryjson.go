package api

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/memex-archive/memex"
)

// WriteEntryJSON writes e with its content, as EntryJSON (WithContent)
// encodes it, byte for byte, with each level indented by indent ("" for
// one line), and a newline. The content is streamed from open, which is
// called twice (once to tell text from binary, once to encode): memory
// stays bounded whatever the entry's size (show --json, GET
// /v1/entries/{ref}?format=json). rng is EntryJSON's Range.
func WriteEntryJSON(w io.Writer, e memex.Entry, rng string, open func() (io.ReadCloser, error), indent string) error {
	text, err := isText(open)
	if err != nil {
		return err
	}
	var meta bytes.Buffer
	enc := json.NewEncoder(&meta)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(EntryJSON{Entry: e, Range: rng}); err != nil {
		return err
	}
	head := bytes.TrimRight(meta.Bytes(), "\n")
	head = bytes.TrimRight(head[:len(head)-1], "\n") // without the closing brace
	field := "content"
	if !text {
		field = "content_base64"
	}
	key, closing := `,"`+field+`":"`, `"}`
	if indent != "" {
		key, closing = ",\n"+indent+`"`+field+`": "`, "\"\n}"
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString(key)
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if text {
		err = writeJSONString(bw, rc)
	} else {
		b64 := base64.NewEncoder(base64.StdEncoding, bw)
		if _, err = io.Copy(b64, rc); err == nil {
			err = b64.Close()
		}
	}
	if err != nil {
		return err
	}
	bw.WriteString(closing + "\n")
	return bw.Flush()
}

// isText reports whether the body open gives is valid UTF-8, reading it
// in chunks.
func isText(open func() (io.ReadCloser, error)) (bool, error) {
	rc, err := open()
	if err != nil {
		return false, err
	}
	defer rc.Close()
	buf := make([]byte, 64<<10)
	carry := 0 // bytes of an incomplete rune kept at buf's start
	for {
		n, err := rc.Read(buf[carry:])
		n += carry
		end := n
		if err == nil {
			end = runeBoundary(buf[:n])
		}
		if !utf8.Valid(buf[:end]) {
			return false, nil
		}
		carry = copy(buf, buf[end:n])
		if err == io.EOF {
			return carry == 0, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// runeBoundary returns where the last complete rune of b ends (b without
// a rune cut at its end).
func runeBoundary(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// writeJSONString writes the text of r (valid UTF-8) as the inside of a
// JSON string, escaped as encoding/json escapes it without HTML escaping.
func writeJSONString(w io.Writer, r io.Reader) error {
	buf := make([]byte, 64<<10)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	carry := 0
	for {
		n, err := r.Read(buf[carry:])
		n += carry
		end := n
		if err == nil {
			end = runeBoundary(buf[:n])
		}
		if end > 0 {
			out.Reset()
			if eerr := enc.Encode(string(buf[:end])); eerr != nil {
				return eerr
			}
			s := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
			if _, werr := w.Write(s[1 : len(s)-1]); werr != nil {
				return werr
			}
		}
		carry = copy(buf, buf[end:n])
		if err == io.EOF {
			if carry != 0 {
				return fmt.Errorf("api: entry content ends inside a character")
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}
