package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
)

// POST /v1/entries, in its JSON form and with a raw body and ?attr=,
// stores attrs redacted like the content and the input: the server's
// Service applies the write policy, whatever the route read.
func TestPostEntriesRedactsAttrs(t *testing.T) {
	svc := localService(t)
	srv, err := api.New(api.Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	post := func(ctype, query, body string) memex.Entry {
		t.Helper()
		resp, err := http.Post(ts.URL+"/v1/entries"+query, ctype, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got memex.Entry
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d, %v", ctype, resp.StatusCode, err)
		}
		return got
	}
	for name, got := range map[string]memex.Entry{
		"json": post("application/json", "", `{"project":"p","input":"echo `+secret+`","attrs":{"env":"GITHUB_TOKEN=`+secret+`"},"content":"token `+secret+`\n"}`),
		"raw":  post("application/octet-stream", "?project=p&attr="+url.QueryEscape("env=GITHUB_TOKEN="+secret), "token "+secret+"\n"),
	} {
		e, err := svc.Entry(context.Background(), got.ID.String(), "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.Attrs["env"], secret) || !strings.Contains(e.Attrs["env"], "[REDACTED:") || strings.Contains(e.Input, secret) || e.Redacted < 2 {
			t.Errorf("%s: stored attrs %q, input %q, redacted %d", name, e.Attrs, e.Input, e.Redacted)
		}
	}
}
