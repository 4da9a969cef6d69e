package hosts

// LiveSession is the agent session memex runs in, as the environment
// getenv reads says: $MEMEX_SESSION, else the session Claude Code or the
// thread Codex gives the commands it runs; "" outside a session.
func LiveSession(getenv func(string) string) string {
	for _, v := range []string{"MEMEX_SESSION", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"} {
		if s := getenv(v); s != "" {
			return s
		}
	}
	return ""
}

// LiveAgent is the host memex runs under, as the environment getenv reads
// says (claude-code, codex); "" when no host says.
func LiveAgent(getenv func(string) string) string {
	switch {
	case getenv("CLAUDE_CODE_SESSION_ID") != "":
		return "claude-code"
	case getenv("CODEX_THREAD_ID") != "":
		return "codex"
	}
	return ""
}
