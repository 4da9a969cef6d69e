package hosts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A hook leaves a note of its last run in the memex home it archives to,
// $MEMEX_HOME/last-hook-HOST.json, so that memex doctor can say when a
// host last ran memex and how that went (a hook never fails the agent, so
// its errors are otherwise seen by nobody).

// HookRun is the note a hook leaves.
type HookRun struct {
	Host    string    `json:"host"`
	Event   string    `json:"event"`
	Session string    `json:"session,omitempty"`
	At      time.Time `json:"at"`
	Error   string    `json:"error,omitempty"`
}

func lastHookFile(home, host string) string {
	return filepath.Join(home, "last-hook-"+host+".json")
}

// RecordHook writes r as host's last hook run in home. It is best effort:
// a hook must not fail because its note could not be written.
func RecordHook(home string, r HookRun) {
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	p := lastHookFile(home, r.Host)
	f, err := os.CreateTemp(home, ".last-hook-*")
	if err != nil {
		return
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// LastHook reads host's last hook run in home; ok is false when no hook
// of host has run there.
func LastHook(home, host string) (HookRun, bool) {
	var r HookRun
	b, err := os.ReadFile(lastHookFile(home, host))
	if err != nil || json.Unmarshal(b, &r) != nil {
		return r, false
	}
	return r, true
}

// EnvOff reports whether the environment variable name turns a hook's
// feature off (off, 0, false, no): MEMEX_LESSONS, MEMEX_HANDOFF. memex
// hook and memex-hook read them alike.
func EnvOff(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}
