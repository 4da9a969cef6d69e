// Package jsonerr words encoding/json's decoding errors for the people who
// wrote the JSON: which field holds what, and what was expected there, in
// JSON's own terms. encoding/json names Go types instead ("cannot unmarshal
// string into Go struct field .messages.timestamp of type float64"), and
// for an anonymous struct the whole type is printed.
package jsonerr

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Describe returns err, an error of json.Unmarshal or json.Decoder.Decode,
// as one line without Go types:
//
//	field "messages.timestamp": found a string, want a number (near byte 29)
//	found an object, want an array (near byte 1)
//	not valid JSON at byte 7: invalid character 'x' looking for beginning of value
//
// A field path lists the JSON keys from the top (array levels have no
// name). Offsets count bytes from the start of what was decoded; for a type
// error encoding/json gives the end of the offending value, hence "near".
// Errors of another kind come back as their text without the "json: "
// prefix.
func Describe(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &te):
		msg := fmt.Sprintf("found %s, want %s (near byte %d)", Value(te.Value), Kind(te.Type), te.Offset)
		if te.Field != "" {
			msg = fmt.Sprintf("field %q: %s", te.Field, msg)
		}
		return msg
	case errors.As(err, &se):
		if se.Error() == "unexpected end of JSON input" {
			return fmt.Sprintf("JSON cut short at byte %d", se.Offset)
		}
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, se.Error())
	case errors.Is(err, io.EOF):
		return "no JSON value (empty input)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "JSON cut short"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// Value words the Value of a json.UnmarshalTypeError ("string", "number
// 1e999", "object", ...) with its article.
func Value(v string) string {
	switch {
	case v == "object" || v == "array":
		return "an " + v
	case v == "bool":
		return "a boolean"
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	case v == "":
		return "a value"
	}
	return "a " + v
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// Kind names what JSON value decodes into a Go type: "a string", "a
// number", "an array", ...
func Kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a string" // time.Time, IDs and the like
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value"
}
