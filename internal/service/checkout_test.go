package service

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

func TestWorkingCheckout(t *testing.T) {
	repo, _ := filepath.EvalSymlinks(testutil.NewRepo(t, "").Dir)
	sub := filepath.Join(repo, "pkg")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	co := WorkingCheckout()
	if co == nil || co.Root != repo || co.Project == "" {
		t.Fatalf("working checkout: %+v", co)
	}
	if got := WorkingRoot(); got != repo {
		t.Fatalf("working root: %q, want %q", got, repo)
	}
	if got := WorkingProject(""); got != co.Project {
		t.Fatalf("working project: %q, want %q", got, co.Project)
	}
	if got := WorkingProject("given"); got != "given" {
		t.Fatalf("a project given: %q", got)
	}
	if got := CheckoutAt(""); got == nil || got.Root != repo {
		t.Fatalf("checkout at \"\": %+v", got)
	}
	other, _ := filepath.EvalSymlinks(t.TempDir())
	if got := CheckoutAt(other); got == nil || got.Root != other {
		t.Fatalf("checkout at %s: %+v", other, got)
	}
}
