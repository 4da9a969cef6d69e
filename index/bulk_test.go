package index

import (
	"encoding/json"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// planSegment is a segment as bleve's merge planner sees it.
type planSegment struct {
	id   uint64
	docs int64
}

func (s planSegment) Id() uint64          { return s.id }
func (s planSegment) FullSize() int64     { return s.docs }
func (s planSegment) LiveSize() int64     { return s.docs }
func (s planSegment) HasVector() bool     { return false }
func (s planSegment) FileSize() int64     { return s.docs * 100 }
func (s planSegment) LiveFileSize() int64 { return s.docs * 100 }

// TestBulkConfigPlansNoMerge runs bleve's merge planner with the options
// a bulk load opens the index with, read as scorch reads them (its
// defaults, overlaid with the configuration's JSON): whatever the number
// and size of the segments a load writes, the background merger is given
// nothing to merge. (It runs asynchronously, so an index cannot show this
// without depending on when it runs.)
func TestBulkConfigPlansNoMerge(t *testing.T) {
	o := mergeplan.DefaultMergePlanOptions
	b, err := json.Marshal(bulkConfig["scorchMergePlanOptions"])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if err := mergeplan.ValidateMergePlannerOptions(&o); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ segments, docs int64 }{{2, 1}, {6, 1}, {50, 10}, {200, 1000}, {30, 4096}, {400, 4096}} {
		var segs []mergeplan.Segment
		for i := int64(0); i < c.segments; i++ {
			segs = append(segs, planSegment{id: uint64(i + 1), docs: c.docs})
		}
		plan, err := mergeplan.Plan(segs, &o)
		if err != nil {
			t.Fatal(err)
		}
		if plan != nil && len(plan.Tasks) > 0 {
			t.Errorf("%d segments of %d documents: the bulk configuration plans %d merges", c.segments, c.docs, len(plan.Tasks))
		}
	}
}
