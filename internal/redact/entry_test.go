package redact

import (
	"io"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

func TestEntryRedactsFieldsAttrsAndBody(t *testing.T) {
	attrs := map[string]string{"parent": "s1", "env": "GITHUB_TOKEN=" + ghToken}
	in := memex.Entry{
		Input:        "curl -H 'Authorization: Bearer abcdef0123456789abcdef0123' x",
		AgentSummary: "used " + stripeKey,
		Aliases:      []string{"toolu_01"},
		Attrs:        attrs,
	}
	e, r := Entry(in, strings.NewReader("export AWS_ACCESS_KEY_ID="+awsKey+"\nok\n"))
	if e.Redacted != 3 {
		t.Fatalf("fields: Redacted = %d, want 3 (input, agent summary, attr)", e.Redacted)
	}
	if strings.Contains(e.Input, "abcdef0123456789") || strings.Contains(e.AgentSummary, stripeKey) || strings.Contains(e.Attrs["env"], ghToken) {
		t.Fatalf("a field kept its secret: %+v", e)
	}
	if attrs["env"] != "GITHUB_TOKEN="+ghToken || e.Attrs["parent"] != "s1" || e.Aliases[0] != "toolu_01" {
		t.Fatalf("caller's attrs modified or other fields changed: %v %+v", attrs, e)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "export AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key]\nok\n" || r.Redacted() != 1 {
		t.Fatalf("body %q, Redacted() = %d", body, r.Redacted())
	}
	if r.Kinds["aws_access_key"] != 1 || r.Kinds["github_token"] != 1 || r.Kinds["stripe_key"] != 1 || r.Kinds["bearer_token"] != 1 {
		t.Fatalf("kinds %v", r.Kinds)
	}

	// A second pass finds nothing more.
	again, r2 := Entry(e, strings.NewReader(string(body)))
	if _, err := io.ReadAll(r2); err != nil {
		t.Fatal(err)
	}
	if again.Redacted != e.Redacted || r2.Redacted() != 0 {
		t.Fatalf("second pass counted %d more", again.Redacted-e.Redacted+r2.Redacted())
	}
}

func TestBytesCountsBodyAndFields(t *testing.T) {
	e, body, kinds := Bytes(memex.Entry{Input: "echo " + ghToken}, []byte("key "+gcpKey+"\n"))
	if e.Redacted != 2 || string(body) != "key [REDACTED:gcp_api_key]\n" || kinds["github_token"] != 1 || kinds["gcp_api_key"] != 1 {
		t.Fatalf("Redacted %d, body %q, kinds %v", e.Redacted, body, kinds)
	}
	clean := []byte("nothing here\n")
	e, body, kinds = Bytes(memex.Entry{Input: "ls"}, clean)
	if e.Redacted != 0 || &body[0] != &clean[0] || kinds != nil {
		t.Fatalf("clean entry changed: %d %q %v", e.Redacted, body, kinds)
	}
}

func TestEntryNilBody(t *testing.T) {
	_, r := Entry(memex.Entry{}, nil)
	if b, err := io.ReadAll(r); err != nil || len(b) != 0 {
		t.Fatalf("nil body reads %q, %v", b, err)
	}
}
