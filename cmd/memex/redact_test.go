package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A synthetic AWS key id, assembled so the source holds no key-shaped string.
var testAWSKey = "AKIA" + "QWERTYUIOPASDFGH"

// redactedOf reads "redacted" from show --json.
func redactedOf(t *testing.T, home, ref string) int {
	t.Helper()
	r := run(t, home, nil, "show", ref, "--json")
	var e struct {
		Redacted int    `json:"redacted"`
		Content  string `json:"content"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &e) != nil {
		t.Fatalf("show %s --json: %+v", ref, r)
	}
	if strings.Contains(r.stdout, testAWSKey) {
		t.Fatalf("show %s: the secret was stored: %s", ref, r.stdout)
	}
	return e.Redacted
}

// TestRedactedCountOnEveryAnswer: an entry whose credentials were replaced
// says how many in add --json, run --json, show --json, show's header line
// and its summary; one with nothing replaced carries no such field.
func TestRedactedCountOnEveryAnswer(t *testing.T) {
	home := t.TempDir()
	r := run(t, home, []byte("AWS_ACCESS_KEY_ID="+testAWSKey+"\nok\n"), "add", "--alias", "env", "--input", "env | grep "+testAWSKey, "--json")
	var added struct {
		Summary  string `json:"summary"`
		Redacted int    `json:"redacted"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &added) != nil || added.Redacted != 2 {
		t.Fatalf("add --json: %+v", r)
	}
	if !strings.HasSuffix(added.Summary, " · 2 secrets redacted") {
		t.Fatalf("summary line does not say so: %q", added.Summary)
	}
	if n := redactedOf(t, home, "env"); n != 2 {
		t.Fatalf("show --json: redacted %d, want 2", n)
	}
	s := run(t, home, nil, "show", "env")
	if s.stdout != "AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key]\nok\n" || !strings.Contains(s.stderr, "2 secrets redacted when archived") {
		t.Fatalf("show: %+v", s)
	}
	if s := run(t, home, nil, "search", "ok", "--json"); !strings.Contains(s.stdout, "2 secrets redacted") {
		t.Fatalf("search hit's summary does not say so: %s", s.stdout)
	}

	r = run(t, home, nil, "run", "--json", "--alias", "ran", "--", "echo", "key="+testAWSKey)
	if r.code != 0 || !strings.Contains(r.stdout, `"redacted": 2`) {
		t.Fatalf("run --json: %+v", r)
	}

	r = run(t, home, []byte("nothing secret\n"), "add", "--alias", "plain", "--json")
	if r.code != 0 || strings.Contains(r.stdout, "redacted") {
		t.Fatalf("add --json of a clean entry: %+v", r)
	}
	if s := run(t, home, nil, "show", "plain"); s.stderr != "" {
		t.Fatalf("show of a clean entry wrote %q", s.stderr)
	}

	hookRun(t, home, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "h",
		"cwd": home, "tool_name": "Bash", "tool_input": map[string]string{"command": "cat ~/.aws/credentials"}, "tool_use_id": "toolu_redact",
		"tool_response": map[string]any{"stdout": "aws_access_key_id = " + testAWSKey + "\n", "stderr": "", "interrupted": false}})
	if n := redactedOf(t, home, "toolu_redact"); n != 1 {
		t.Fatalf("hook: redacted %d, want 1", n)
	}
}

// TestServerRedactsAttrsAndCounts: POST /v1/entries redacts the attrs and
// the input as well as the content, and its answer carries the count; a
// hook that goes through the server keeps it.
func TestServerRedactsAttrsAndCounts(t *testing.T) {
	home := t.TempDir()
	addr := startServe(t, home)
	req, _ := json.Marshal(map[string]any{"content": "key " + testAWSKey + "\n", "input": "echo " + testAWSKey,
		"attrs": map[string]string{"note": "id " + testAWSKey}, "aliases": []string{"posted"}})
	resp, err := http.Post("http://"+addr+"/v1/entries", "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Redacted int               `json:"redacted"`
		Input    string            `json:"input"`
		Attrs    map[string]string `json:"attrs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST: %d %v", resp.StatusCode, err)
	}
	if got.Redacted != 3 || strings.Contains(got.Input, testAWSKey) || strings.Contains(got.Attrs["note"], testAWSKey) {
		t.Fatalf("POST answer: %+v", got)
	}
	if n := redactedOf(t, home, "posted"); n != 3 {
		t.Fatalf("stored redacted %d, want 3", n)
	}
	hookRun(t, home, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "h",
		"cwd": home, "tool_name": "Bash", "tool_input": map[string]string{"command": "env"}, "tool_use_id": "toolu_served",
		"tool_response": map[string]any{"stdout": "AWS_ACCESS_KEY_ID=" + testAWSKey + "\n", "stderr": "", "interrupted": false}})
	if n := redactedOf(t, home, "toolu_served"); n != 1 {
		t.Fatalf("hook through the server: redacted %d, want 1", n)
	}
}
