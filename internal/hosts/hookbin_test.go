package hosts

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// install writes host's configuration with o and returns what Inspect
// then finds.
func install(t *testing.T, host string, o Options, remove bool) Installation {
	t.Helper()
	changes, err := Plan(host, o, remove)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Changed() {
			if _, err := Apply(c); err != nil {
				t.Fatal(err)
			}
		}
	}
	in, err := Inspect(host, o)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// With a hook binary, the tool-call hooks run it and every other hook
// memex; an install without one points them back at memex, and uninstall
// removes both kinds.
func TestPostToolUseRunsTheHookBinary(t *testing.T) {
	for _, host := range []string{"claude-code", "codex"} {
		dir := t.TempDir()
		o := Options{Bin: "/opt/memex", HookBin: "/opt/memex-hook", Home: "/h", UserHome: dir, Dir: dir}
		in := install(t, host, o, false)
		if len(in.Missing) > 0 {
			t.Fatalf("%s: hooks missing: %v", host, in.Missing)
		}
		for ev, c := range in.Hooks {
			want := "/opt/memex"
			if ev == "PostToolUse" {
				want = "/opt/memex-hook"
			}
			if c.Bin != want || c.Home != "/h" {
				t.Errorf("%s %s runs %+v, want %s with --home /h", host, ev, c, want)
			}
		}
		o.HookBin = ""
		in = install(t, host, o, false)
		if c := in.Hooks["PostToolUse"]; c.Bin != "/opt/memex" || len(in.Missing) > 0 {
			t.Errorf("%s: reinstalled without memex-hook: PostToolUse runs %+v, missing %v", host, c, in.Missing)
		}
		o.HookBin = "/opt/memex-hook"
		install(t, host, o, false)
		if in = install(t, host, o, true); in.Present() {
			t.Errorf("%s: uninstall left %+v", host, in)
		}
	}
}

// HookBinBeside finds memex-hook beside memex only when it answers as
// memex-hook.
func TestHookBinBeside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for the binaries")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "memex")
	os.WriteFile(bin, []byte("#!/bin/sh\necho memex 0.1.0\n"), 0o755)
	ctx := context.Background()
	if got := HookBinBeside(ctx, bin); got != "" {
		t.Errorf("no memex-hook: got %q", got)
	}
	hook := filepath.Join(dir, HookBinName)
	os.WriteFile(hook, []byte("#!/bin/sh\necho something else\n"), 0o755)
	if got := HookBinBeside(ctx, bin); got != "" {
		t.Errorf("a memex-hook that does not answer as one: got %q", got)
	}
	os.WriteFile(hook, []byte("#!/bin/sh\necho memex-hook '(abc)', hands over to "+bin+"\n"), 0o755)
	if got := HookBinBeside(ctx, bin); got != hook {
		t.Errorf("got %q, want %q", got, hook)
	}
}

// memex-hook answers --version, but it is no memex for --bin: the MCP
// server and every hook but a tool call's need memex itself.
func TestCheckBinRefusesTheHookBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts stand in for the binaries")
	}
	dir := t.TempDir()
	hook := filepath.Join(dir, HookBinName)
	os.WriteFile(hook, []byte("#!/bin/sh\necho memex-hook '(abc)', hands over to /opt/memex\n"), 0o755)
	if err := CheckBin(context.Background(), hook); err == nil {
		t.Errorf("CheckBin(%s) = nil, want it refused", hook)
	}
	bin := filepath.Join(dir, "memex")
	os.WriteFile(bin, []byte("#!/bin/sh\necho memex 0.1.0\n"), 0o755)
	if err := CheckBin(context.Background(), bin); err != nil {
		t.Errorf("CheckBin(%s) = %v", bin, err)
	}
}
