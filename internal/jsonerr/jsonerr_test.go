package jsonerr

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
)

func TestDescribeNamesJSONNotGo(t *testing.T) {
	type doc struct {
		Messages []struct {
			Timestamp float64 `json:"timestamp"`
			Tags      []string
		} `json:"messages"`
		Count int               `json:"count"`
		Attrs map[string]string `json:"attrs"`
		Addr  netip.Addr        `json:"addr"`
		Ok    bool              `json:"ok"`
	}
	for _, c := range []struct{ in, want string }{
		{`{"messages":[{"timestamp":"2026-06-05T04:59:42Z"}]}`, `field "messages.timestamp": found a string, want a number (near byte 48)`},
		{`{"messages":{}}`, `field "messages": found an object, want an array (near byte 13)`},
		{`{"count":1.5}`, `field "count": found the number 1.5, want an integer (near byte 12)`},
		{`{"attrs":{"a":1}}`, `field "attrs": found a number, want a string (near byte 15)`},
		{`{"addr":12}`, `field "addr": found a number, want a string (near byte 10)`},
		{`{"ok":"yes"}`, `field "ok": found a string, want a boolean (near byte 11)`},
		{`[1,2]`, `found an array, want an object (near byte 1)`},
		{`{"count":`, `JSON cut short at byte 9`},
		{`{count}`, `not valid JSON at byte 2: invalid character 'c' looking for beginning of object key string`},
	} {
		var d doc
		err := json.Unmarshal([]byte(c.in), &d)
		got := Describe(err)
		if got != c.want {
			t.Errorf("%s: %q (from %v), want %q", c.in, got, err, c.want)
		}
		if strings.Contains(got, "Go ") || strings.Contains(got, "float64") {
			t.Errorf("%s: %q names Go types", c.in, got)
		}
	}
	var d doc
	if got := Describe(json.NewDecoder(strings.NewReader("")).Decode(&d)); got != "no JSON value (empty input)" {
		t.Errorf("empty input: %q", got)
	}
	if Describe(nil) != "" {
		t.Error("nil error")
	}
}
