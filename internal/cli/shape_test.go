package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/memory"
)

type inner struct {
	A string `json:"a"`
	B []int  `json:"b,omitempty"`
}

type embedded struct {
	E string `json:"e"`
}

type shaped struct {
	embedded
	ID      memex.ID           `json:"id"`
	Name    string             `json:"name,omitempty"`
	When    time.Time          `json:"when"`
	Inner   *inner             `json:"inner,omitempty"`
	Items   []inner            `json:"items"`
	Words   []string           `json:"words"`
	Counts  map[string]int     `json:"counts,omitempty"`
	Raw     json.RawMessage    `json:"raw,omitempty"`
	Hidden  string             `json:"-"`
	Untaged struct{ X, Y int } // its Go names
	private int
}

func TestJSONShape(t *testing.T) {
	want := `{"e","id","name","when","inner":{"a","b"},"items":[{"a","b"}],"words","counts","raw","Untaged":{"X","Y"}}`
	if got := JSONShape(shaped{}); got != want {
		t.Errorf("JSONShape:\n got %s\nwant %s", got, want)
	}
	if got := JSONShape([]inner{}); got != `[{"a","b"}]` {
		t.Errorf("of a slice: %s", got)
	}
}

// JSONShape gives the fields WriteJSON writes, in its order, for types
// whose every field is set (so that none is left out as empty): the
// shape read back from WriteJSON's output is JSONShape's.
func TestJSONShapeIsWhatWriteJSONWrites(t *testing.T) {
	for _, v := range []any{shaped{}, memory.StaleResult{}, memory.Capsule{}, memory.ProceduresResult{},
		[]memory.LessonItem{}, memory.UpdateReport{}, api.DerefResult{}.Result, api.ContextResult{}.ContextResult,
		api.VerifyResult{}, api.ReindexResult{}, api.ForgetResult{}} {
		p := reflect.New(reflect.TypeOf(v))
		fill(p.Elem(), 0)
		var b bytes.Buffer
		if err := WriteJSON(&b, p.Elem().Interface()); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		dec := json.NewDecoder(&b)
		var got strings.Builder
		if err := readShape(dec, &got); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if want := JSONShape(v); got.String() != want {
			t.Errorf("%T: WriteJSON writes\n%s\nJSONShape says\n%s", v, got.String(), want)
		}
	}
}

// fill sets every field of v, recursively, to a value that is not empty.
func fill(v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)))
		return
	case reflect.TypeFor[json.RawMessage]():
		v.Set(reflect.ValueOf(json.RawMessage(`"x"`)))
		return
	case reflect.TypeFor[memex.ID]():
		v.Set(reflect.ValueOf(memex.NewID(time.Now())))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(f, depth+1)
			}
		}
	}
}

// readShape reads one JSON value from dec and writes its shape as
// JSONShape gives it: an object's keys, each followed by the shape of an
// object or array of objects it holds. A map's object counts as a field
// of its own kind, not an object with a shape: maps are filled with the
// key "x" alone, and an object whose keys are just "x" is left out.
func readShape(dec *json.Decoder, b *strings.Builder) error {
	var sub strings.Builder
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		sub.WriteByte('{')
		first := true
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			if !first {
				sub.WriteByte(',')
			}
			first = false
			sub.WriteString(`"` + k.(string) + `"`)
			var v strings.Builder
			if err := readShape(dec, &v); err != nil {
				return err
			}
			if v.Len() > 0 {
				sub.WriteString(":" + v.String())
			}
		}
		sub.WriteByte('}')
		if s := sub.String(); s != `{"x"}` {
			b.WriteString(s)
		}
	case json.Delim('['):
		var elem strings.Builder
		for dec.More() {
			elem.Reset()
			if err := readShape(dec, &elem); err != nil {
				return err
			}
		}
		if elem.Len() > 0 {
			b.WriteString("[" + elem.String() + "]")
		}
	default:
		return nil
	}
	_, err = dec.Token() // the closing delimiter
	if err == io.EOF {
		err = nil
	}
	return err
}

func TestJSONHelpWraps(t *testing.T) {
	got := JSONHelp(memory.ProceduresResult{})
	if strings.ReplaceAll(got, "\n", "") != "--json: "+JSONShape(memory.ProceduresResult{}) {
		t.Fatalf("JSONHelp is not the shape: %q", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if len(line) > helpWidth || !strings.HasSuffix(line, ",") && !strings.HasSuffix(got, line) {
			t.Errorf("line %q: longer than %d or not cut after a comma", line, helpWidth)
		}
	}
	if JSONHelp(api.ForgetResult{}) != `--json: {"forgotten","matched"}` {
		t.Errorf("short: %q", JSONHelp(api.ForgetResult{}))
	}
}
