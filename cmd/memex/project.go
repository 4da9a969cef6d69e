package main

import "github.com/memex-archive/memex/internal/service"

// projectValue is a --project flag. It takes a project as memex records it
// (github.com/acme/api), or a directory written as a path (".", "..",
// "~/src/api", "./api", "/abs/dir"), which stands for the project that add
// and run record there (service.ProjectArg).
type projectValue struct{ p *string }

func (v projectValue) Set(s string) error { *v.p = service.ProjectArg(s); return nil }
func (v projectValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v projectValue) Type() string { return "string" }
