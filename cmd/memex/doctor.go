package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

// doctorProblem is one thing memex doctor found wrong, with its fix.
type doctorProblem = hosts.Problem

// doctorHost is what memex doctor found of one host's installation.
type doctorHost = hosts.Health

type doctorServer struct {
	Running   bool   `json:"running"` // serve.addr names a server
	Addr      string `json:"addr,omitempty"`
	Answering bool   `json:"answering"`
	Version   string `json:"version,omitempty"`
}

type doctorStore struct {
	Exists       bool          `json:"exists"`
	Schema       int           `json:"schema,omitempty"`
	PendingIndex int64         `json:"pending_index"`
	Files        []fileProblem `json:"files"` // modes too wide, spool left over
	Note         string        `json:"note,omitempty"`
}

type doctorReport struct {
	Version  string          `json:"version"`
	Home     string          `json:"home"`
	OK       bool            `json:"ok"`
	Hosts    []doctorHost    `json:"hosts"`
	Server   doctorServer    `json:"server"`
	Store    doctorStore     `json:"store"`
	Problems []doctorProblem `json:"problems"`
}

func (r *doctorReport) problem(where, problem, fix string) {
	r.Problems = append(r.Problems, doctorProblem{Where: where, Problem: problem, Fix: fix})
}

func (a *app) doctorCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check memex's installs in the agent hosts and the store they write to",
		Long: `Check that memex works where it was installed, and say how to fix what does not:

  hosts   for each agent host memex is installed in (user and project scope): whether its
          configuration still holds memex's hooks and MCP server, whether the memex
          binary they name runs, which store they write to (this one?), and the last hook
          that ran and how it went
  server  whether a memex serve named in the home is running and answering
  store   whether the store opens (schema), entries not yet in the search index, hook
          captures left in the spool, files other users can read

Exits 1 when something is wrong; --json prints the whole report.`,
		Example: `  memex doctor
  memex --home ~/work/memex doctor --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			rep := a.doctor(c.Context())
			if asJSON {
				if err := writeJSON(a.stdout, rep); err != nil {
					return err
				}
			} else {
				printDoctor(a, rep)
			}
			if !rep.OK {
				return &exitStatus{code: exitFailure}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func (a *app) doctor(ctx context.Context) doctorReport {
	rep := doctorReport{Version: version, Home: a.home, Hosts: []doctorHost{}, Problems: []doctorProblem{}}
	a.doctorHosts(ctx, &rep)
	a.doctorServer(ctx, &rep)
	a.doctorStore(ctx, &rep)
	rep.OK = len(rep.Problems) == 0
	return rep
}

func (a *app) doctorHosts(ctx context.Context, rep *doctorReport) {
	def, _ := home.Default() // "" when there is no home directory
	found, problems := hosts.Check(ctx, hosts.CheckOptions{Home: a.home, InstallHome: a.installedHome(), DefaultHome: def})
	rep.Hosts = append(rep.Hosts, found...)
	rep.Problems = append(rep.Problems, problems...)
}

func (a *app) doctorServer(ctx context.Context, rep *doctorReport) {
	srv, ok := home.ReadServer(a.home)
	if !ok {
		return
	}
	rep.Server.Running, rep.Server.Addr = true, srv.Addr
	_, r, ok := a.runningServer(ctx)
	if !ok {
		rep.problem("server", fmt.Sprintf("%s names a memex serve at %s that does not answer (killed?): hooks and commands fall back to the store, waiting for its lock",
			filepath.Join(a.home, home.ServerFile), srv.Addr),
			"start it again (memex serve), or remove "+filepath.Join(a.home, home.ServerFile))
		return
	}
	rep.Server.Answering = true
	var hz struct {
		Version string `json:"version"`
	}
	if err := r.GetJSON(ctx, "/healthz", nil, &hz); err == nil {
		rep.Server.Version = hz.Version
	}
}

func (a *app) doctorStore(ctx context.Context, rep *doctorReport) {
	files, err := service.HomeProblems(a.home)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		rep.problem("store", err.Error(), "")
	}
	rep.Store.Files = files
	for _, f := range files {
		fix := "chmod as it says"
		if strings.Contains(f.Message, "spooled") {
			fix = "run any memex command that writes (memex ingest claude-code, say): it archives the spool first"
		}
		rep.problem("store", f.Path+": "+f.Message, fix)
	}
	if rep.Server.Answering {
		_, r, _ := a.runningServer(ctx)
		var st map[string]any
		if err := r.GetJSON(ctx, "/v1/stats", nil, &st); err != nil {
			rep.problem("store", "the server did not give the store's figures: "+userMessage(err), "")
			return
		}
		rep.Store.Exists, rep.Store.Schema = true, archive.SchemaVersion
		rep.Store.PendingIndex, _ = toInt64(st["pending_index"])
		rep.Store.Note = "read through the running server, which keeps the index caught up"
		return
	}
	h, err := home.Open(ctx, a.home, home.Options{Shared: true, Wait: 2 * time.Second, Logger: a.log})
	switch {
	case errors.Is(err, home.ErrNoStore):
		rep.Store.Note = "no store yet: the first hook or memex command that archives creates it"
		return
	case errors.Is(err, memex.ErrBusy):
		rep.Store.Exists = true
		rep.Store.Note = "busy: " + home.Holder(a.home) + " holds it; run memex doctor again when it is done"
		return
	case err != nil:
		rep.problem("store", userMessage(err), "memex verify says more")
		return
	}
	defer h.Close()
	rep.Store.Exists, rep.Store.Schema = true, archive.SchemaVersion
	if err := h.Store.Pending(ctx, func(memex.ID) error { rep.Store.PendingIndex++; return nil }); err != nil {
		rep.problem("store", "reading the entries not yet indexed: "+userMessage(err), "memex verify says more")
	}
}

func toInt64(v any) (int64, bool) {
	f, ok := v.(float64)
	return int64(f), ok
}

func printDoctor(a *app, rep doctorReport) {
	w := a.stdout
	fmt.Fprintf(w, "memex %s, store in %s\n", rep.Version, rep.Home)
	if len(rep.Hosts) == 0 {
		fmt.Fprintf(w, "hosts: memex is installed in none (memex install %s)\n", strings.Join(hosts.Names, "|"))
	}
	for _, h := range rep.Hosts {
		fmt.Fprintf(w, "%s (%s scope): %d of %d hooks", h.Host, h.Scope, len(h.Hooks), len(h.Hooks)+len(h.Missing))
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
		} else if len(h.Hooks) > 0 {
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
		fmt.Fprintf(w, "store: schema v%d, %d entries waiting for the index (the next memex search indexes them first)", rep.Store.Schema, rep.Store.PendingIndex)
		if rep.Store.Note != "" {
			fmt.Fprintf(w, " (%s)", rep.Store.Note)
		}
		fmt.Fprintln(w)
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
