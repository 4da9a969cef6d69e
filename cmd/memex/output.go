package main

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as indented JSON followed by a newline. --json output
// is a stable contract: field names change only with a major version.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
