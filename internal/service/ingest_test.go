package service_test

import (
	"errors"
	"testing"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/service"
)

func TestIngestOutcome(t *testing.T) {
	for _, c := range []struct {
		name   string
		format ingest.Format
		res    api.IngestResult
		want   string // "" nil, "nofile" ErrNoFile, else the sentence
	}{
		{"read", ingest.JSONL, api.IngestResult{Files: 1, Added: 3}, ""},
		{"already imported", ingest.JSONL, api.IngestResult{Unchanged: 2}, ""},
		{"default locations empty", ingest.Codex, api.IngestResult{}, ""},
		{"no path yielded a file", ingest.Codex, api.IngestResult{FileErrors: []string{"x: no such file"}}, "nofile"},
		{"a missing path beside a file", ingest.Codex, api.IngestResult{Files: 1, FileErrors: []string{"x: no such file"}}, ""},
		{"a missing path beside an imported one", ingest.Codex, api.IngestResult{Unchanged: 1, FileErrors: []string{"x"}}, ""},
		{"every file unusable", ingest.JSONL, api.IngestResult{Files: 2, Unusable: []string{"a", "b"}},
			"ingest: nothing imported: no valid jsonl record in the 2 files read"},
		{"auto", ingest.Auto, api.IngestResult{Files: 1, Unusable: []string{"a"}},
			"ingest: nothing imported: no valid record of a format memex reads in the 1 file read"},
		{"one unusable beside a good one", ingest.JSONL, api.IngestResult{Files: 2, Unusable: []string{"a"}}, ""},
		{"unusable beside an imported one", ingest.JSONL, api.IngestResult{Files: 1, Unchanged: 1, Unusable: []string{"a"}}, ""},
	} {
		err := service.IngestOutcome(c.format, c.res)
		switch {
		case c.want == "" && err != nil, c.want == "nofile" && !errors.Is(err, service.ErrNoFile):
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		case c.want != "" && c.want != "nofile" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
