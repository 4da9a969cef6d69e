package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
)

// OpenCode runs no command hooks: it loads JavaScript plugins from
// .opencode/plugins/ (the project's) and ~/.config/opencode/plugins/ (the
// user's). memex install opencode writes one there, memex.js, whose hooks
// run memex hook opencode EVENT with memex's hook JSON on stdin (a tool call
// memex-hook's, when install found it beside memex):
//
//	tool.execute.after                  PostToolUse {session_id, cwd, tool_name,
//	                                    tool_use_id (the callID), tool_input (the
//	                                    args), tool_response {title, output, metadata}}
//	experimental.chat.system.transform  SessionStart {session_id, cwd, source:
//	                                    "startup"}, once per session; the handoff
//	                                    capsule it prints joins the system prompt
//	event session.idle                  Stop {session_id, cwd}: imports OpenCode's
//	                                    data (its database), which completes the
//	                                    entries the plugin archived
//
// The entry of a tool call is the one the import makes of the tool part:
// its output, metadata.exit (0 when absent, as the import reads a
// completed part), the arguments as input; the import finds it by the key
// "opencode:SESSION:CALLID" (ingest.ToolKey) and adds what only the
// database knows (the part id, the message, SESSION#N).

// pluginMarker is the first line of the plugin install writes: a file
// there without it is the user's and is left alone.
const pluginMarker = "// memex: written by `memex install opencode`"

// OpenCodePlugin is the plugin's source for the memex command argv, and
// toolArgv for the hook of a tool call (memex-hook's, when install found
// one: HookBinBeside; argv otherwise).
func OpenCodePlugin(argv, toolArgv []string) []byte {
	cmd, _ := json.Marshal(argv)
	tool, _ := json.Marshal(toolArgv)
	return []byte(strings.NewReplacer("@MEMEX@", string(cmd), "@MEMEX_TOOL@", string(tool)).Replace(openCodePlugin))
}

const openCodePlugin = pluginMarker + `; ` + "`memex uninstall opencode`" + ` removes it.
// It archives every tool call as it completes, imports the session when it goes idle,
// and gives a new session what earlier sessions of the project left (the handoff
// capsule) in its system prompt; MEMEX_HANDOFF=off turns that off. memex never blocks
// or fails the agent: a problem is logged to memex's stderr and ignored here.
import { spawn } from "node:child_process"

const MEMEX = @MEMEX@
// A tool call's hook: memex-hook when it was installed beside memex (it archives
// the call in a fraction of memex's start-up time), else memex.
const MEMEX_TOOL = @MEMEX_TOOL@

// hook runs memex hook opencode EVENT with input as JSON on stdin and resolves to
// what it prints ("" on any failure, or after ms milliseconds).
function hook(event, input, ms = 10000) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = () => { if (!done) { done = true; resolve(out) } }
    try {
      const bin = event === "PostToolUse" ? MEMEX_TOOL : MEMEX
      const p = spawn(bin[0], [...bin.slice(1), "hook", "opencode", event], { stdio: ["pipe", "pipe", "inherit"] })
      const timer = setTimeout(() => { p.kill(); out = ""; finish() }, ms)
      p.stdout.on("data", (b) => { out += b })
      p.on("error", () => { clearTimeout(timer); out = ""; finish() })
      p.on("close", () => { clearTimeout(timer); finish() })
      p.stdin.on("error", () => {})
      p.stdin.end(JSON.stringify({ ...input, hook_event_name: event }))
    } catch {
      finish()
    }
  })
}

export const MemexPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree
  const args = new Map() // callID -> args, for builds whose after-hook lacks them
  const capsules = new Map() // sessionID -> Promise<string>
  return {
    "tool.execute.before": async (input, output) => {
      args.set(input.callID, output?.args)
    },
    "tool.execute.after": async (input, output) => {
      const toolInput = input.args ?? args.get(input.callID) ?? null
      args.delete(input.callID)
      // Not awaited: the agent goes on while memex archives the call.
      hook("PostToolUse", {
        session_id: input.sessionID, cwd, tool_name: input.tool, tool_use_id: input.callID, tool_input: toolInput,
        tool_response: { title: output?.title ?? "", output: output?.output ?? "", metadata: output?.metadata ?? null },
      })
    },
    event: async ({ event }) => {
      if (event?.type === "session.idle" && event.properties?.sessionID) {
        hook("Stop", { session_id: event.properties.sessionID, cwd }, 60000)
      }
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input?.sessionID
      if (!id || !output?.system) return
      if (!capsules.has(id)) {
        capsules.set(id, hook("SessionStart", { session_id: id, cwd, source: "startup" }).then((out) => {
          try {
            return JSON.parse(out).hookSpecificOutput.additionalContext || ""
          } catch {
            return ""
          }
        }))
      }
      const text = await capsules.get(id)
      if (text) output.system.push(text)
    },
  }
}
`

// openCodeResponse reads the tool_response the plugin sends: OpenCode's
// {title, output, metadata} of a completed call.
func openCodeResponse(raw json.RawMessage) (text string, exit *int, title string) {
	var r struct {
		Title    string `json:"title"`
		Output   string `json:"output"`
		Metadata struct {
			Exit *int `json:"exit"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return string(bytes.TrimSpace(raw)), memex.IntPtr(0), ""
	}
	exit = r.Metadata.Exit
	if exit == nil {
		exit = memex.IntPtr(0) // as the import reads a completed part
	}
	return r.Output, exit, r.Title
}

// Normalize fills in what a host's hook input leaves to memex: OpenCode's
// plugin names no transcript, which is OpenCode's data directory.
func Normalize(host string, in HookInput) HookInput {
	if host == "opencode" && in.TranscriptPath == "" {
		if paths := ingest.DefaultPaths(ingest.OpenCode, ""); len(paths) > 0 {
			in.TranscriptPath = paths[0]
		}
	}
	return in
}

// pluginEdit is the edit of the plugin file: install writes it whole (a
// file of that name that is not memex's is refused), uninstall removes it.
func pluginEdit(o *Options, remove bool) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		if old != nil && !bytes.HasPrefix(old, []byte(pluginMarker)) {
			if remove {
				return old, nil // the user's: left as it is
			}
			return nil, fmt.Errorf("not memex's plugin (its first line is not %q); move it, then run again: %w", pluginMarker, memex.ErrInvalid)
		}
		if remove {
			return nil, nil
		}
		return OpenCodePlugin(o.argv(), o.toolArgv()), nil
	}
}
