package hosts

import "testing"

func TestLiveSessionAndAgent(t *testing.T) {
	for _, c := range []struct {
		env            map[string]string
		session, agent string
	}{
		{map[string]string{}, "", ""},
		{map[string]string{"CODEX_THREAD_ID": "t1"}, "t1", "codex"},
		{map[string]string{"CLAUDE_CODE_SESSION_ID": "c1", "CODEX_THREAD_ID": "t1"}, "c1", "claude-code"},
		{map[string]string{"MEMEX_SESSION": "m1", "CLAUDE_CODE_SESSION_ID": "c1"}, "m1", "claude-code"},
	} {
		getenv := func(k string) string { return c.env[k] }
		if s, a := LiveSession(getenv), LiveAgent(getenv); s != c.session || a != c.agent {
			t.Errorf("%v: session %q agent %q, want %q %q", c.env, s, a, c.session, c.agent)
		}
	}
}
