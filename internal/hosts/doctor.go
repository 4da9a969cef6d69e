package hosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Problem is one thing a check found wrong, with its fix.
type Problem struct {
	Where   string `json:"where"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// Binary is a memex binary an installed command names, and whether it
// runs as memex.
type Binary struct {
	Path    string `json:"path"`
	Runs    bool   `json:"runs"`
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Health is what Check found of one host's installation in one scope.
type Health struct {
	Installation
	// Recorded says install's record (installs.json) lists this host's
	// files.
	Recorded bool     `json:"recorded"`
	Binaries []Binary `json:"binaries,omitempty"`
	// WritesTo are the memex homes the installed commands use.
	WritesTo []string `json:"writes_to,omitempty"`
	LastHook *HookRun `json:"last_hook,omitempty"`
}

// CheckOptions says which store the installations should write to.
type CheckOptions struct {
	// Home is the memex home being checked; installs.json is read from it.
	Home string
	// InstallHome is the --home an install for Home writes into the
	// commands, "" for the default home.
	InstallHome string
	// DefaultHome is the home an installed command without --home uses.
	DefaultHome string
}

// InstallCommand is the command line that (re)installs host, in scope,
// for the home given (none for the default one).
func InstallCommand(home, host, scope string) string {
	cmd := "memex"
	if home != "" {
		cmd += " --home " + ShellJoin([]string{home})
	}
	cmd += " install " + host
	if scope == "project" {
		cmd += " --scope project"
	}
	return cmd
}

// Check inspects every host memex is installed in (user scope, and project
// scope when the working directory is not the user's home): whether its
// configuration still holds memex's hooks and MCP server, whether the
// binaries they run run as memex, which stores they write to, and how the
// last hook went. It returns what it found and the problems, each with a
// fix.
func Check(ctx context.Context, o CheckOptions) ([]Health, []Problem) {
	out, problems := []Health{}, []Problem{}
	problem := func(where, p, fix string) { problems = append(problems, Problem{where, p, fix}) }
	recorded, err := Installed(filepath.Join(o.Home, ManifestFile))
	if err != nil {
		problem(ManifestFile, err.Error(), "move it away; memex install writes a new one")
	}
	scopes := []bool{false}
	if cwd, err := os.Getwd(); err == nil && cwd != "" {
		if dir, _ := os.UserHomeDir(); filepath.Clean(cwd) != filepath.Clean(dir) {
			scopes = append(scopes, true)
		}
	}
	binRuns := map[string]Binary{}
	for _, name := range Names {
		for _, project := range scopes {
			in, err := Inspect(name, Options{Project: project})
			if err != nil {
				problem(name, err.Error(), "")
				continue
			}
			h := Health{Installation: in}
			for _, f := range in.Files {
				if recorded[f] == name {
					h.Recorded = true
				}
			}
			if !in.Present() && !h.Recorded && len(in.Errors) == 0 {
				continue // not installed here
			}
			where := name
			if project {
				where += " (project)"
			}
			fix := InstallCommand(o.InstallHome, name, in.Scope)
			for _, e := range in.Errors {
				problem(where, e, "fix the file by hand, then run "+fix)
			}
			switch {
			case !in.Present():
				problem(where, "memex's hooks and MCP server are gone from "+strings.Join(in.Files, " and ")+" (removed by hand?)", fix)
			case len(in.Hooks) > 0 && len(in.Missing) > 0:
				problem(where, "hooks missing: "+strings.Join(in.Missing, ", "), fix)
			case len(in.Hooks) == 0 && len(in.Missing) > 0:
				problem(where, "memex's hooks are gone (its MCP server is still there): nothing is captured as the agent works", fix)
			}
			if in.Present() && in.Server == nil {
				problem(where, "the memex MCP server is gone: the agent cannot search or read the archive", fix)
			}
			homes := map[string]bool{}
			for _, c := range in.Commands() {
				if _, seen := binRuns[c.Bin]; !seen {
					binRuns[c.Bin] = checkBinary(ctx, c.Bin)
				}
				if !slices.Contains(h.binPaths(), c.Bin) {
					h.Binaries = append(h.Binaries, binRuns[c.Bin])
				}
				dir := c.Home
				if dir == "" {
					dir = o.DefaultHome
				}
				homes[filepath.Clean(dir)] = true
			}
			for _, b := range h.Binaries {
				if !b.Runs {
					problem(where, fmt.Sprintf("its hooks run %s, which does not run as memex (%s)", b.Path, b.Error), fix+" (it writes the path of the memex you run it with)")
				}
			}
			for dir := range homes {
				h.WritesTo = append(h.WritesTo, dir)
			}
			sort.Strings(h.WritesTo)
			for _, dir := range h.WritesTo {
				if dir != filepath.Clean(o.Home) {
					problem(where, fmt.Sprintf("its hooks write to the store in %s, not to this one (%s): what the agent archives is not what you read", dir, o.Home),
						fix+" (or read that store: memex --home "+ShellJoin([]string{dir})+" ...)")
				}
			}
			if len(h.WritesTo) > 0 {
				if r, ok := LastHook(h.WritesTo[0], name); ok {
					h.LastHook = &r
					if r.Error != "" {
						problem(where, fmt.Sprintf("the last hook (%s, %s) failed: %s", r.Event, r.At.Local().Format(time.DateTime), r.Error), "fix what it says; the next hook that runs clears this")
					}
				}
			}
			out = append(out, h)
		}
	}
	return out, problems
}

// checkBinary says whether bin runs as memex.
func checkBinary(ctx context.Context, bin string) Binary {
	b := Binary{Path: bin}
	if !filepath.IsAbs(bin) {
		b.Error = "not an absolute path: the host looks it up on its own PATH"
	} else if v, err := RunsVersion(ctx, bin); err != nil {
		b.Error = err.Error()
		if errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "no such file") {
			b.Error = "no such file"
		}
	} else {
		b.Runs, b.Version = true, v
	}
	return b
}

func (h Health) binPaths() []string {
	out := make([]string, len(h.Binaries))
	for i, b := range h.Binaries {
		out[i] = b.Path
	}
	return out
}
