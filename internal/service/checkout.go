package service

import (
	"os"

	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/ingest"
)

// CheckoutOf is the checkout holding dir: its root (rootOf), of the
// project ingest names dir's transcripts by.
func CheckoutOf(dir string) *deref.Checkout {
	return deref.NewCheckout(rootOf(dir), ingest.DetectProject(dir))
}

// CheckoutAt is the checkout holding dir, else Dir's (the default a
// memory request and a server's api.Options.Checkout fall back on); nil
// without a directory or without CheckoutOf.
func (o Options) CheckoutAt(dir string) *deref.Checkout {
	if dir == "" {
		dir = o.Dir
	}
	if dir == "" || o.CheckoutOf == nil {
		return nil
	}
	return o.CheckoutOf(dir)
}

// rootOf is the root of the repository holding dir, else dir.
func rootOf(dir string) string {
	if root := ingest.RepoRoot(dir); root != "" {
		return root
	}
	return dir
}

// RepoRoot is the root of the current directory's checkout: the
// repository holding it, else the directory.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return rootOf(wd), nil
}

// WorkingCheckout is the checkout of the current directory: its root (the
// repository's, else the directory) and its project. Evidence of that
// project is checked against it; nil when there is no directory.
func WorkingCheckout() *deref.Checkout {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	return CheckoutOf(wd)
}

// CheckoutAt is api.Options.Checkout: the checkout holding dir, the
// current directory's for "".
func CheckoutAt(dir string) *deref.Checkout {
	if dir == "" {
		return WorkingCheckout()
	}
	return CheckoutOf(dir)
}

// WorkingRoot is the root of the current directory's checkout, which a
// request names as the client's; "" when there is no current directory.
func WorkingRoot() string {
	root, _ := RepoRoot()
	return root
}

// WorkingProject is p, else the current directory's project.
func WorkingProject(p string) string {
	if p != "" {
		return p
	}
	if co := WorkingCheckout(); co != nil {
		return co.Project
	}
	return ""
}
