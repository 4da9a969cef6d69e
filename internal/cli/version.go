package cli

import (
	"runtime"
	"runtime/debug"
)

// BuildInfo is what a binary knows of its own build: the release, and,
// when built from a checkout, the commit and whether it had local changes.
type BuildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// ReadBuildInfo is the BuildInfo of this binary, of release version.
func ReadBuildInfo(version string) BuildInfo {
	b := BuildInfo{Version: version, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
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
func (b BuildInfo) String() string {
	s := "memex " + b.Version
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += " (" + c
		if b.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + b.Go
}
