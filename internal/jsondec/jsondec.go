// Package jsondec decodes JSON as encoding/json does, faster: ingest
// decodes transcripts with it, summarize tool inputs. It uses the json v2
// implementation
// (go-json-experiment, what encoding/json becomes under
// GOEXPERIMENT=jsonv2) set to encoding/json's semantics, which decodes
// the corpora's lines and trajectories in about a third of encoding/json's
// CPU: it validates as it decodes, where json.Unmarshal scans the whole
// input once to validate it and again to decode it. The one v1 option
// left out is that validation pass (ReportErrorsWithLegacySemantics:
// what v1 reports, and how much of the value it fills, when the input is
// not valid). So whatever fails is decoded again, from zero, by
// encoding/json, whose value and error are then the ones kept: a parser
// sees what json.Unmarshal gives it, errors included
// (ingest.TestDecodeAgreesWithEncodingJSON).
package jsondec

import (
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// v1Options are encoding/json's semantics but for its validation pass.
var v1Options = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// Unmarshal decodes data into *v, which must be zero, as json.Unmarshal
// does.
func Unmarshal[T any](data []byte, v *T) error {
	if jsonv2.Unmarshal(data, v, v1Options) == nil {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(data, v)
}
