// Package serve is the process memex serve runs over a home: it listens,
// reads or creates the bearer token, makes the key, builds the viewer and
// the API over the home's Services, names itself in serve.addr, keeps the
// index (and, if asked, the hosts' transcripts) up to date in the
// background and serves until its context ends.
package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/api/web"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/eval"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
)

// Options say how to serve a home.
type Options struct {
	// Addr is the address to listen on (host:port; port 0 picks a free
	// one). Off loopback a bearer token is required.
	Addr string
	// TokenFile holds the bearer token; "" is the home's token file,
	// used only off loopback.
	TokenFile string
	// AllowHosts are Host names answered besides loopback and Addr's host.
	AllowHosts []string
	// IngestRoots are directories POST /v1/ingest may read under, besides
	// the hosts' default locations.
	IngestRoots []string
	// EvalDirs are folders of saved eval runs the viewer shows besides the
	// home's own (eval.RunsDir), which comes first.
	EvalDirs []string
	// Formats are the hosts whose transcripts are imported in the
	// background, every Every.
	Formats []ingest.Format
	Every   time.Duration
	// Service are the options of the Services served; their CheckoutAt
	// is api.Options.Checkout (the server's own directory's for "").
	Service service.Options
	Version string
	Logger  *slog.Logger
	// Stderr gets the lines a user reads: a token created, the address
	// served. Nil discards them.
	Stderr io.Writer
	// Ready, when set, is called with the address to dial once serve.addr
	// names it.
	Ready func(addr string)
}

// Run serves h until ctx ends, then lets in-flight requests and the
// background work finish. A server that cannot listen leaves no token
// file behind; serve.addr is removed when Run returns.
func Run(ctx context.Context, h *home.Home, o Options) error {
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if _, err := h.Index(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv, tokenPath, key, err := newServer(h, o, stderr)
	if err != nil {
		ln.Close()
		return err
	}
	addr := api.DialAddr(ln.Addr())
	if err := home.WriteServer(h.Dir, addr, tokenPath, key); err != nil {
		ln.Close()
		return err
	}
	defer home.RemoveServer(h.Dir, addr)

	// The background work outlives ctx until Serve has stopped: an import
	// or a drain under way is not cut by the signal that stops serving.
	bctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() {
		done <- service.Background(bctx, h, srv.svc, service.BackgroundOptions{Formats: o.Formats, Every: o.Every,
			Options: o.Service, Logger: o.Logger})
	}()
	fmt.Fprintf(stderr, "memex: serving %s on http://%s (HTTP /v1, MCP /mcp, viewer /)\n", h.Dir, addr)
	if note := listening(ln.Addr()); note != "" {
		fmt.Fprintln(stderr, note)
	}
	if o.Ready != nil {
		o.Ready(addr)
	}
	err = srv.Serve(ctx, ln)
	stop()
	if berr := <-done; err == nil {
		err = berr
	}
	return err
}

type server struct {
	*api.Server
	svc api.Service
}

// newServer reads (or creates) the token, makes the key and builds the
// viewer and the API over h. The token is read only once the address is
// known to serve.
func newServer(h *home.Home, o Options, stderr io.Writer) (server, string, string, error) {
	token, tokenPath, err := Token(h.Dir, o.Addr, o.TokenFile, stderr)
	if err != nil {
		return server{}, "", "", err
	}
	key, err := home.NewKey()
	if err != nil {
		return server{}, "", "", err
	}
	s := h.Store
	checkout := o.Service.CheckoutAt
	viewer, err := web.New(web.Options{Store: s, Catalog: SessionKeys{s}, Index: service.Searcher{Store: s, Index: h.Index},
		Evals: EvalRuns(append([]string{eval.RunsDir(h.Dir)}, o.EvalDirs...)), Checkout: func() *deref.Checkout { return checkout("") },
		Version: o.Version, Logger: o.Logger})
	if err != nil {
		return server{}, "", "", err
	}
	svc := service.New(h, o.Service)
	srv, err := api.New(api.Options{
		Service: svc, Viewer: viewer,
		Memory: service.NewMemory(h, o.Service), Checkout: checkout,
		Token: token, Version: o.Version, Logger: o.Logger, Agent: "mcp",
		Hosts: api.HostsOf(o.Addr, o.AllowHosts), IngestRoots: service.IngestRoots(o.IngestRoots), Key: key,
		// An add through the server takes what a local add takes: the
		// archive's free-space reserve is the bound.
		MaxBody: -1,
	})
	if err != nil {
		return server{}, "", "", err
	}
	return server{srv, svc}, tokenPath, key, nil
}

// listening says, of a server listening on every interface, that it
// does: the address it prints (and writes in serve.addr) is the loopback
// one to dial, which alone would hide that other machines reach it too.
func listening(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return ""
	}
	return fmt.Sprintf("memex: listening on every interface (%s): other machines reach it with the bearer token, under a Host name given with --allow-host", a)
}

// CheckAddr checks an address to listen on before anything is created:
// host:port with a port from 0 to 65535 (or a service name). Whether the
// host resolves is learnt when the server listens.
func CheckAddr(ctx context.Context, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return fmt.Errorf("%v: want HOST:PORT, as 127.0.0.1:7077 (port 0 picks a free one)", err)
	}
	if _, err := net.DefaultResolver.LookupPort(ctx, "tcp", port); err != nil {
		return fmt.Errorf("port %q: want a number from 0 to 65535", port)
	}
	return nil
}

// Token returns the bearer token a server at addr requires ("" for none)
// and the file it came from: none on loopback unless file is given, else
// the one in file or dir's token file, created on first use (said on
// stderr).
func Token(dir, addr, file string, stderr io.Writer) (string, string, error) {
	if file == "" && api.IsLoopback(addr) {
		return "", "", nil
	}
	tok, path, created, err := home.Token(dir, file)
	if err != nil {
		return "", "", fmt.Errorf("serve: refusing to serve %s without a token: %w", addr, err)
	}
	if created {
		fmt.Fprintf(stderr, "memex: created a bearer token in %s\n", path)
	}
	return tok, path, nil
}

// SessionKeys adapts the archive's session listing to web.Catalog.
type SessionKeys struct{ Store *archive.Store }

func (k SessionKeys) SessionKeys(ctx context.Context) ([]web.SessionKey, error) {
	list, err := k.Store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.SessionKey, len(list))
	for i, si := range list {
		out[i] = web.SessionKey{SessionRef: si.SessionRef, Entries: si.Entries, First: si.First, Last: si.Last}
	}
	return out, nil
}

// EvalRuns are the folders whose saved eval runs the viewer shows.
type EvalRuns []string

// EvalRuns reads the runs of every folder, newest first, each with the
// plot and the table that memex eval budget writes of it. A file that is
// not a run is skipped; a folder named twice is read once.
func (dirs EvalRuns) EvalRuns(ctx context.Context) ([]web.EvalRun, error) {
	var out []web.EvalRun
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		runs, _, err := eval.LoadRuns(abs)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			var table bytes.Buffer
			if err := eval.WriteTable(&table, r.Report); err != nil {
				return nil, err
			}
			out = append(out, web.EvalRun{Name: r.Name, Source: abs, Created: r.Created, Probes: r.Report.Probes,
				File: r.Probes, Plot: []byte(eval.Plot(r.Report)), Table: table.String()})
		}
	}
	slices.SortStableFunc(out, func(a, b web.EvalRun) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, ctx.Err()
}
