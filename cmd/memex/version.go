package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is memex's release. A release build sets it with
// -ldflags "-X main.version=1.2.3"; it is what --version, /healthz and the
// MCP server report.
var version = "0.1.0"

// buildInfo is what a binary knows of its own build: the release, and,
// when built from a checkout, the commit and whether it had local changes.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Go: runtime.Version()}
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

func (b buildInfo) String() string {
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

func (a *app) versionCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print memex's version",
		Long: `Print the version of this memex binary (also: memex --version), with the commit it was
built from when known.`,
		Example: `  memex version
  memex version --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if asJSON {
				return writeJSON(a.stdout, readBuildInfo())
			}
			_, err := fmt.Fprintln(a.stdout, readBuildInfo())
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: version, commit, modified, go")
	return c
}
