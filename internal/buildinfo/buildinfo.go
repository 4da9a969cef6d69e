// Package buildinfo is what a binary of memex knows of its own build, for
// memex --version (and /healthz) and memex-hook --version alike; it links
// the standard library alone.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info is what a binary knows of its own build: the release, and,
// when built from a checkout, the commit and whether it had local changes.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// Read is the Info of this binary, of release version; "" is the main
// module's version as the go command recorded it ("" without build
// information).
func Read(version string) Info {
	b := Info{Version: version, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

// String is the line memex --version prints: memex VERSION (COMMIT[,
// modified]) GO.
func (b Info) String() string {
	s := "memex " + b.Version
	if b.Commit != "" {
		s += " (" + b.ShortCommit()
		if b.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + b.Go
}

// ShortCommit is the first twelve digits of the commit, "" when the build
// knows none.
func (b Info) ShortCommit() string {
	if len(b.Commit) > 12 {
		return b.Commit[:12]
	}
	return b.Commit
}
