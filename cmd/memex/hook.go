package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/hook"
	"github.com/memex-archive/memex/internal/hosts"
)

// A hook is package hook's: it archives, imports and injects through the
// running server or the store, spools what a busy store refuses, and
// never fails the host.

func (a *app) hookCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude-code|codex|gemini|opencode EVENT [JSON]",
		Short: "Handle an agent host's hook event (reads the host's JSON on stdin)",
		Long: `Run as the host's hook command (memex install writes the configuration):

  PostToolUse             archive the tool call and its full response at once
  PostToolUseFailure      the same for a call that failed (Claude Code)
  PreCompact, PreCompress import the transcript so far
  SessionStart            after compact: inject this session's IndexedSummary;
                          on startup/resume/clear: inject the project's recent memory
  Stop, SubagentStop,
  AfterAgent, SessionEnd  import the transcript (quickly; spooled when the store is busy)
  drain                   archive what hooks spooled, reading no input (memex-hook runs
                          it when it was the last hook in flight)

A Claude Code transcript is imported with its subagents' (<session>/subagents/).
OpenCode runs them from the plugin memex install opencode writes.
Codex's notify program is "memex hook codex notify": it passes its JSON as an argument
(agent-turn-complete with the thread id) and memex imports that thread's rollout.

A hook always exits 0 and prints nothing on stdout but the context it injects;
problems go to stderr.`,
		Example: `  echo '{"session_id":"s","hook_event_name":"PostToolUse",...}' | memex hook claude-code PostToolUse`,
		Args:    cli.RangeArgs(2, 3),
		RunE: func(c *cobra.Command, args []string) error {
			in := a.stdin
			if len(args) == 3 {
				in = strings.NewReader(args[2])
			}
			a.runHook(c.Context(), args[0], args[1], in)
			return nil
		},
	}
}

func (a *app) runHook(ctx context.Context, host, event string, in io.Reader) {
	hook.Run(ctx, hook.Options{
		Home: a.home, Stdout: a.stdout, Stderr: a.stderr, Logger: a.log,
		Service: a.serviceOptions(), CompactWait: cli.LockTimeout(),
		NoHandoff: hosts.EnvOff("MEMEX_HANDOFF"), NoLessons: hosts.EnvOff("MEMEX_LESSONS"),
		Message: cli.Message,
	}, host, event, in)
}
