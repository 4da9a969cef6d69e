package service_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
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

func TestWatchFormats(t *testing.T) {
	got, err := service.WatchFormats([]string{"codex", " claude-code", "", "codex"})
	if err != nil || !slices.Equal(got, []ingest.Format{ingest.Codex, ingest.ClaudeCode}) {
		t.Fatalf("got %v, %v: want codex, claude-code once each", got, err)
	}
	taken := "the formats imported in the background are " + ingest.FormatList(service.Watchable())
	for name, want := range map[string]string{
		"bogus":          `"bogus": not a transcript format; ` + taken,
		"jsonl":          "jsonl: that format has no default location to read; import jsonl files with memex ingest jsonl PATH or POST /v1/ingest; " + taken,
		"mini-swe-agent": "mini-swe-agent: that format has no default location to read",
	} {
		_, err := service.WatchFormats([]string{"codex", name})
		if !errors.Is(err, memex.ErrInvalid) || !strings.HasPrefix(memex.Sentence(err), want) {
			t.Errorf("%s: %v, want ErrInvalid saying %q", name, err, want)
		}
	}
}
