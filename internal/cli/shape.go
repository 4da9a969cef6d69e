package cli

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
)

// JSONShape is the shape of v's JSON as a command's help gives it after
// "--json:": the names of an object's fields in the order WriteJSON
// writes them, and after the name of a field holding an object, or an
// array of objects, that object's shape: {"id","items":[{"id","text"}]}.
// A field of any other kind (a string, a number, a map, an array of
// strings) is its name alone. It reads the types' json tags as
// encoding/json does (embedded structs inlined, "-" left out), so that
// the help cannot drift from what --json prints.
func JSONShape(v any) string {
	var b strings.Builder
	shape(&b, reflect.TypeOf(v))
	return b.String()
}

var (
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// shape writes t's shape to b: an object's or an array of objects', else
// nothing.
func shape(b *strings.Builder, t reflect.Type) {
	t = deref(t)
	switch {
	case ownEncoding(t):
		// Its own encoding: not a shape to read from its fields.
	case t.Kind() == reflect.Struct:
		b.WriteByte('{')
		fields(b, t, true)
		b.WriteByte('}')
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && hasShape(t.Elem()):
		b.WriteByte('[')
		shape(b, t.Elem())
		b.WriteByte(']')
	}
}

// hasShape reports whether shape writes anything for t: a struct, or a
// list of them, not encoded its own way.
func hasShape(t reflect.Type) bool {
	t = deref(t)
	switch {
	case ownEncoding(t):
		return false
	case t.Kind() == reflect.Struct:
		return true
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return hasShape(t.Elem())
	}
	return false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// ownEncoding reports whether t (or *t) writes its own JSON or text.
func ownEncoding(t reflect.Type) bool {
	return t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}

// fields writes the fields of struct t, embedded structs' inlined; first
// says that none was written before.
func fields(b *strings.Builder, t reflect.Type, first bool) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && tag == "" && ft.Kind() == reflect.Struct {
			first = fields(b, ft, first)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if tag == "" {
			tag = f.Name
		}
		b.WriteString(`"` + tag + `"`)
		if hasShape(f.Type) {
			b.WriteByte(':')
			shape(b, f.Type)
		}
	}
	return first
}

// helpWidth is the width JSONHelp wraps to: that of the help texts.
const helpWidth = 90

// JSONHelp is the paragraph of a command's help that gives the shape of
// its --json output: "--json: " and JSONShape(v), wrapped after a comma to
// lines of at most helpWidth columns where it can be.
func JSONHelp(v any) string {
	var b strings.Builder
	line := 0
	for i, part := range strings.SplitAfter("--json: "+JSONShape(v), ",") {
		if i > 0 && line+len(part) > helpWidth {
			b.WriteByte('\n')
			line = 0
		}
		b.WriteString(part)
		line += len(part)
	}
	return b.String()
}
