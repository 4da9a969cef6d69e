package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/summarize"
)

// What memex doctor finds of a home's server and store, beside what
// hosts.Check finds of the hosts memex is installed in.

// DoctorReport is what memex doctor prints (--json as it is).
type DoctorReport struct {
	Version  string          `json:"version"`
	Home     string          `json:"home"`
	OK       bool            `json:"ok"`
	Hosts    []hosts.Health  `json:"hosts"`
	Server   ServerHealth    `json:"server"`
	Store    StoreHealth     `json:"store"`
	Problems []hosts.Problem `json:"problems"`
}

// DoctorOptions are what Doctor checks: the hosts as hosts.CheckOptions
// says (its Home is the home checked), the server c (its Client when one
// answers, else nil), and Message, which words an error for a person.
type DoctorOptions struct {
	Version string
	Hosts   hosts.CheckOptions
	Message func(error) string
}

// Doctor checks the hosts memex is installed in, the home's server and its
// store (through the server when one answers: Running); the report is OK
// when no problem was found.
func Doctor(ctx context.Context, o DoctorOptions) DoctorReport {
	dir := o.Hosts.Home
	_, c, version, _ := running(ctx, dir)
	rep := DoctorReport{Version: o.Version, Home: dir, Hosts: []hosts.Health{}, Problems: []hosts.Problem{}}
	found, problems := hosts.Check(ctx, o.Hosts)
	rep.Hosts = append(rep.Hosts, found...)
	rep.Problems = append(rep.Problems, problems...)
	rep.Server, problems = CheckServer(dir, c, version)
	rep.Problems = append(rep.Problems, problems...)
	rep.Store, problems = CheckStore(ctx, dir, c, o.Message)
	rep.Problems = append(rep.Problems, problems...)
	rep.OK = len(rep.Problems) == 0
	return rep
}

// ServerHealth is what the server a home names (serve.addr) does.
type ServerHealth struct {
	Running   bool   `json:"running"` // serve.addr names a server
	Addr      string `json:"addr,omitempty"`
	Answering bool   `json:"answering"`
	Version   string `json:"version,omitempty"`
}

// StoreHealth is what a home's store holds and how it opens.
type StoreHealth struct {
	Exists       bool          `json:"exists"`
	Schema       int           `json:"schema,omitempty"`
	PendingIndex int64         `json:"pending_index"`
	Files        []api.Problem `json:"files"` // modes too wide, spool left over
	Note         string        `json:"note,omitempty"`
}

// CheckServer reports the server dir's serve.addr names; c is its Client
// when it answers /healthz, nil when it does not, and version what that
// answer said (Running asked it already: it is not asked again).
func CheckServer(dir string, c *api.Client, version string) (ServerHealth, []hosts.Problem) {
	var sh ServerHealth
	srv, ok := home.ReadServer(dir)
	if !ok {
		return sh, nil
	}
	sh.Running, sh.Addr = true, srv.Addr
	file := filepath.Join(dir, home.ServerFile)
	if c == nil {
		return sh, []hosts.Problem{{Where: "server",
			Problem: fmt.Sprintf("%s names a memex serve at %s that does not answer (killed?): hooks and commands fall back to the store, waiting for its lock", file, srv.Addr),
			Fix:     "start it again (memex serve), or remove " + file}}
	}
	sh.Answering, sh.Version = true, version
	return sh, nil
}

// CheckStore reports dir's store and files: through c, the running
// server's Client (it owns the store), when c is not nil, else opened
// read-only, waiting 2s at most for the lock. message words an error.
func CheckStore(ctx context.Context, dir string, c *api.Client, message func(error) string) (StoreHealth, []hosts.Problem) {
	var st StoreHealth
	var problems []hosts.Problem
	problem := func(what, fix string) {
		problems = append(problems, hosts.Problem{Where: "store", Problem: what, Fix: fix})
	}
	files, err := HomeProblems(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		problem(err.Error(), "")
	}
	st.Files = files
	for _, f := range files {
		fix := "chmod as it says"
		if strings.Contains(f.Message, "spooled") {
			fix = "run any memex command that writes (memex ingest claude-code, say): it archives the spool first"
		}
		problem(f.Path+": "+f.Message, fix)
	}
	if c != nil {
		figures, err := c.Stats(ctx)
		if err != nil {
			problem("the server did not give the store's figures: "+message(err), "")
			return st, problems
		}
		st.Exists, st.Schema, st.PendingIndex = true, archive.SchemaVersion, figures.Pending
		st.Note = "read through the running server, which keeps the index caught up"
		return st, problems
	}
	h, err := home.Open(ctx, dir, home.Options{Shared: true, Wait: 2 * time.Second})
	switch {
	case errors.Is(err, home.ErrNoStore):
		st.Note = "no store yet: the first hook or memex command that archives creates it"
		return st, problems
	case errors.Is(err, memex.ErrBusy):
		st.Exists = true
		st.Note = "busy: " + home.Holder(dir) + " holds it; run memex doctor again when it is done"
		return st, problems
	case err != nil:
		problem(message(err), "memex verify says more")
		return st, problems
	}
	defer h.Close()
	st.Exists, st.Schema = true, archive.SchemaVersion
	// Counted, not the store's figures: those read every entry.
	if err := h.Store.Pending(ctx, func(memex.ID) error { st.PendingIndex++; return nil }); err != nil {
		problem("reading the entries not yet indexed: "+message(err), "memex verify says more")
	}
	return st, problems
}

// WriteDoctor prints rep as memex doctor does: a line per host memex is
// installed in (its hooks, MCP server, binaries and last hook), the
// server, the store, then the problems found with their fixes.
func WriteDoctor(w io.Writer, rep DoctorReport) {
	fmt.Fprintf(w, "memex %s, store in %s\n", rep.Version, rep.Home)
	if len(rep.Hosts) == 0 {
		fmt.Fprintf(w, "hosts: memex is installed in none (memex install %s)\n", strings.Join(hosts.Names, "|"))
	}
	for _, h := range rep.Hosts {
		switch {
		case h.Plugin != nil: // OpenCode's hooks are its plugin
			fmt.Fprintf(w, "%s (%s scope): plugin", h.Host, h.Scope)
		case slices.Contains(h.Missing, "plugin"):
			fmt.Fprintf(w, "%s (%s scope): no plugin", h.Host, h.Scope)
		default:
			fmt.Fprintf(w, "%s (%s scope): %d of %d hooks", h.Host, h.Scope, len(h.Hooks), len(h.Hooks)+len(h.Missing))
		}
		if h.Server != nil {
			fmt.Fprint(w, ", MCP server")
		} else {
			fmt.Fprint(w, ", no MCP server")
		}
		if len(h.WritesTo) > 0 {
			fmt.Fprintf(w, ", writing to %s", strings.Join(h.WritesTo, " and "))
		}
		fmt.Fprintln(w)
		for _, b := range h.Binaries {
			if b.Runs {
				fmt.Fprintf(w, "  runs %s (%s)\n", b.Path, b.Version)
			} else {
				fmt.Fprintf(w, "  runs %s: %s\n", b.Path, b.Error)
			}
		}
		if h.LastHook != nil {
			outcome := "ok"
			if h.LastHook.Error != "" {
				outcome = "failed: " + h.LastHook.Error
			}
			fmt.Fprintf(w, "  last hook: %s at %s, %s\n", h.LastHook.Event, h.LastHook.At.Local().Format(time.DateTime), outcome)
		} else if len(h.Hooks) > 0 || h.Plugin != nil {
			fmt.Fprintln(w, "  last hook: none has run yet")
		}
	}
	switch {
	case !rep.Server.Running:
		fmt.Fprintln(w, "server: none running")
	case rep.Server.Answering:
		fmt.Fprintf(w, "server: %s answering (memex %s)\n", rep.Server.Addr, rep.Server.Version)
	default:
		fmt.Fprintf(w, "server: %s not answering\n", rep.Server.Addr)
	}
	if rep.Store.Exists && rep.Store.Schema > 0 {
		fmt.Fprintf(w, "store: schema v%d, %s waiting for the index", rep.Store.Schema, summarize.Plural(int(rep.Store.PendingIndex), "entry"))
		// Read through a server, the note says that it indexes them.
		if rep.Store.Note != "" {
			fmt.Fprintf(w, " (%s)\n", rep.Store.Note)
		} else {
			fmt.Fprintln(w, " (the next memex search indexes them first)")
		}
	} else if rep.Store.Note != "" {
		fmt.Fprintf(w, "store: %s\n", rep.Store.Note)
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "no problems found")
		return
	}
	fmt.Fprintf(w, "\n%d problem(s):\n", len(rep.Problems))
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "- %s: %s\n", p.Where, p.Problem)
		if p.Fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", p.Fix)
		}
	}
}
