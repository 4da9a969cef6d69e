package service_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/service"
)

// What is written through PolicyWriter reaches the file redacted, whatever
// the writes' boundaries, and the entry counts the field's and the body's
// replacements; without redacting, the bytes go as they are.
func TestPolicyWriter(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	out := "start\ntoken " + secret + "\nend\n"
	var f bytes.Buffer
	e := memex.Entry{Input: "echo " + secret}
	w, done := service.PolicyWriter(&f, &e, true)
	for i := 0; i < len(out); i += 7 {
		if _, err := io.WriteString(w, out[i:min(i+7, len(out))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.String()+e.Input, secret) || e.Redacted != 2 || !strings.HasSuffix(f.String(), "\nend\n") {
		t.Fatalf("spooled %q, input %q, redacted %d", f.String(), e.Input, e.Redacted)
	}
	f.Reset()
	e = memex.Entry{Input: "echo " + secret}
	w, done = service.PolicyWriter(&f, &e, false)
	io.WriteString(w, out)
	if err := done(); err != nil || f.String() != out || e.Redacted != 0 || !strings.Contains(e.Input, secret) {
		t.Fatalf("as is: %q %+v %v", f.String(), e, err)
	}
}
