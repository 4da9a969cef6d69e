package service

import (
	"os"

	"github.com/memex-archive/memex/deref"
)

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
	if co := WorkingCheckout(); co != nil {
		return co.Root
	}
	return ""
}

// WorkingProject is p, else the current directory's project.
func WorkingProject(p string) string {
	if co := WorkingCheckout(); p == "" && co != nil {
		return co.Project
	}
	return p
}
