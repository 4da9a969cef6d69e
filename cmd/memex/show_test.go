package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
)

// TestShowBinary: --json carries binary content as content_base64 alone
// and text, empty text included, as content alone; --budget prints a note
// instead of a binary entry's bytes, and show without it the bytes.
func TestShowBinary(t *testing.T) {
	home := t.TempDir()
	bin := []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff, '\n', 0x80}
	add := func(body []byte) string {
		r := run(t, home, body, "add", "-")
		if r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
		return strings.TrimSpace(r.stdout)
	}
	binID, emptyID, textID := add(bin), add(nil), add([]byte("text\n"))
	for _, c := range []struct {
		id, content, base64 string
		hasContent          bool
	}{
		{binID, "", "f0VMRgABAv8KgA==", false},
		{emptyID, "", "", true},
		{textID, "text\n", "", true},
	} {
		r := run(t, home, nil, "show", c.id, "--json")
		var got map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
			t.Fatalf("show %s --json: %+v (%v)", c.id, r, err)
		}
		content, hasContent := got["content"]
		b64, _ := got["content_base64"].(string)
		if hasContent != c.hasContent || hasContent && content != c.content || b64 != c.base64 {
			t.Errorf("show %s --json: content %q (present %v), content_base64 %q; want %q (present %v), %q",
				c.id, content, hasContent, b64, c.content, c.hasContent, c.base64)
		}
	}

	want := "[memex: binary content (10 bytes) not shown; memex show " + binID + " > FILE saves it]\n"
	if r := run(t, home, nil, "show", binID, "--budget", "500"); r.code != 0 || r.stdout != want {
		t.Errorf("show binary --budget: %+v; want %q", r, want)
	}
	if r := run(t, home, nil, "show", binID); r.code != 0 || r.stdout != string(bin) {
		t.Errorf("show binary: %+v", r)
	}
	if r := run(t, home, nil, "show", textID, "--budget", "500"); r.code != 0 || r.stdout != "text\n" {
		t.Errorf("show text --budget: %+v", r)
	}
}

// countingService counts the calls show makes of the Service for each
// entry it prints.
type countingService struct {
	api.Service
	entries, shows, lines int
}

func (c *countingService) Entry(ctx context.Context, ref, project string) (memex.Entry, error) {
	c.entries++
	return c.Service.Entry(ctx, ref, project)
}

func (c *countingService) Show(ctx context.Context, req api.ShowRequest) (api.ShowResult, error) {
	c.shows++
	return c.Service.Show(ctx, req)
}

func (c *countingService) Lines(ctx context.Context, req api.LinesRequest) (io.ReadCloser, error) {
	c.lines++
	return c.Service.Lines(ctx, req)
}

// TestShowAsksForTheEntryOnce: show reads an entry once, by one look-up of
// its metadata, then its lines; with --budget by the budgeted read alone,
// which says too how many credentials were replaced in it.
func TestShowAsksForTheEntryOnce(t *testing.T) {
	dir := t.TempDir()
	secret := "aws_access_key_id = AKIAQ3EGUJZ5TNHMWX7P\n"
	body := strings.Repeat("a line of the log\n", 300) + secret
	r := run(t, dir, []byte(body), "add", "--alias", "log", "-")
	if r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	h, err := home.Open(context.Background(), dir, home.Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, c := range []struct {
		args                  []string
		entries, shows, lines int
	}{
		{[]string{"log"}, 1, 0, 1},
		{[]string{"log", "--lines", "2:3"}, 1, 0, 1},
		{[]string{"log", "--budget", "100000"}, 0, 1, 0},
		{[]string{"log", "--budget", "100"}, 0, 1, 0},
		{[]string{"log", "--budget", "100", "--json"}, 0, 1, 0},
	} {
		svc := &countingService{Service: service.New(h, service.Options{})}
		var out, errb bytes.Buffer
		a := &app{stdout: &out, stderr: &errb, svc: svc}
		cmd := a.showCommand()
		cmd.SetArgs(c.args)
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("show %v: %v", c.args, err)
		}
		if svc.entries != c.entries || svc.shows != c.shows || svc.lines != c.lines {
			t.Errorf("show %v: %d Entry, %d Show, %d Lines calls; want %d, %d, %d",
				c.args, svc.entries, svc.shows, svc.lines, c.entries, c.shows, c.lines)
		}
		if note := "[memex " + id + " · 1 secret redacted when archived"; !slices.Contains(c.args, "--json") && !strings.HasPrefix(errb.String(), note) {
			t.Errorf("show %v: stderr %q, want it to start %q", c.args, errb.String(), note)
		}
	}
}

// An empty reference is a bad command line (exit 2), not an entry that
// was not found.
func TestShowEmptyRefIsUsage(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("x"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	for _, ref := range []string{"", "  "} {
		if r := run(t, home, nil, "show", ref); r.code != 2 || !strings.Contains(r.stderr, "give an ID or alias") {
			t.Errorf("show %q: %+v", ref, r)
		}
	}
}
