package cli

import (
	"os"
	"strings"
	"time"
)

// LockTimeout is how long a command waits for another memex process to
// release the store: $MEMEX_LOCK_TIMEOUT (a Go duration), default 30s.
func LockTimeout() time.Duration {
	if v := strings.TrimSpace(os.Getenv("MEMEX_LOCK_TIMEOUT")); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return d
		}
	}
	return 30 * time.Second
}
