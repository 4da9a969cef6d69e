package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object that keeps its keys in order, so that editing a
// host's configuration does not reorder what the user wrote. Values are
// *object, []any, string, json.Number, bool or nil.
type object struct {
	keys []string
	m    map[string]any
}

// newObject builds an object from key, value pairs.
func newObject(kv ...any) *object {
	o := &object{m: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) get(k string) any {
	if o == nil {
		return nil
	}
	return o.m[k]
}

func (o *object) getArr(k string) ([]any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.m[k].([]any)
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.m[k]; !ok {
		return
	}
	delete(o.m, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// parseOrdered decodes one JSON value, keeping object key order. The
// error of a malformed document says where it stops being JSON, as the
// person who edits the file by hand counts: "line 3, column 13: ...".
func parseOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err == nil {
		if _, err = dec.Token(); err == io.EOF {
			return v, nil
		} else if err == nil {
			err = errors.New("data after the JSON value")
		}
	}
	// The decoder's token offsets lag behind separators and blanks;
	// json.Unmarshal's scanner stops on the very byte at fault.
	off, what := dec.InputOffset(), err.Error()
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(b, new(any)), &se) {
		off, what = se.Offset-1, se.Error()
	}
	if err == io.EOF || what == "unexpected end of JSON input" {
		off, what = int64(len(b)), "the JSON is cut short"
	}
	line, col := lineColumn(b, off)
	return nil, fmt.Errorf("line %d, column %d: %s", line, col, strings.TrimPrefix(what, "json: "))
}

// lineColumn is the 1-based line and column (in bytes) of the byte at
// offset off of b (0-based; len(b) is just past the end).
func lineColumn(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

func parseValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeOrdered writes v as JSON indented by two spaces, with a final
// newline.
func encodeOrdered(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, depth int) {
	ind := strings.Repeat("  ", depth+1)
	switch v := v.(type) {
	case *object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(ind)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, v.m[k], depth+1)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("  ", depth) + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(ind)
			writeValue(b, x, depth+1)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("  ", depth) + "]")
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	default:
		enc, _ := json.Marshal(v)
		b.Write(enc)
	}
}

func writeString(b *bytes.Buffer, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
