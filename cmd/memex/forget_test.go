package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// homeFilesHolding returns the files under home whose bytes contain
// secret, or its lower-case form (what the index keeps of a word).
func homeFilesHolding(t *testing.T, home string, secret string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && (bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(strings.ToLower(secret)))) {
			rel, _ := filepath.Rel(home, p)
			out = append(out, rel)
		}
		return err
	})
	return out
}

// TestForgetLeavesNothingUnderTheHome: a forgotten entry's body stayed in
// the store's files byte for byte, after forget and after reopening. Now
// no file under the home holds it.
func TestForgetLeavesNothingUnderTheHome(t *testing.T) {
	home := t.TempDir()
	b := make([]byte, 10)
	rand.Read(b)
	secret := "MEMEXSECRET" + strings.ToUpper(hex.EncodeToString(b))
	for i := range 50 {
		run(t, home, []byte(strings.Repeat("ok line of build output\n", 3+i)), "add", "--session", "s", "-")
	}
	small := run(t, home, []byte("export API_TOKEN_FIXTURE=keep\n"+secret+"\n"), "add", "--no-redact", "--session", "s", "-")
	// Random bytes around it: neither the archive's chunks nor Pebble's
	// blocks compress them, so the secret is in the files as it is,
	// wherever it lands (compressed copies are the archive's tests').
	big := make([]byte, 600<<10)
	rand.Read(big)
	copy(big[300<<10:], secret)
	large := run(t, home, big, "add", "--no-redact", "--session", "s", "--input", "cat "+secret, "-")
	if small.code != 0 || large.code != 0 {
		t.Fatalf("add: %+v %+v", small, large)
	}
	if r := run(t, home, nil, "search", strings.ToLower(secret)); r.code != 0 || !strings.Contains(r.stdout, strings.TrimSpace(small.stdout)) {
		t.Fatalf("search before forget: %+v", r)
	}
	if got := homeFilesHolding(t, home, secret); len(got) == 0 {
		t.Fatal("the secret is in no file before forget: the test shows nothing")
	}
	r := run(t, home, nil, "forget", strings.TrimSpace(small.stdout), strings.TrimSpace(large.stdout), "--yes")
	if r.code != 0 {
		t.Fatalf("forget: %+v", r)
	}
	if got := homeFilesHolding(t, home, secret); len(got) > 0 {
		t.Errorf("after forget the secret is in %v", got)
	}
	// Reopened by a writer and by a reader: nothing comes back.
	for _, args := range [][]string{{"add", "-"}, {"search", "line"}, {"show", strings.TrimSpace(small.stdout)}, {"verify"}} {
		run(t, home, []byte("later\n"), args...)
	}
	if got := homeFilesHolding(t, home, secret); len(got) > 0 {
		t.Errorf("after reopening the secret is in %v", got)
	}
	if r := run(t, home, nil, "forget", "--help"); !strings.Contains(r.stdout, "no file under $MEMEX_HOME holds") {
		t.Errorf("forget --help does not say what it guarantees")
	}
}
