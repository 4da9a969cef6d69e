package web

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/memex-archive/memex"
)

// An error page answers with the status the API gives the same error.
func TestErrorPageStatus(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
	}{
		{memex.ErrNotFound, 404},
		{memex.ErrAmbiguous, 400},
		{memex.ErrBusy, 503},
		{memex.ErrDiskFull, 507},
		{context.DeadlineExceeded, 504},
		{context.Canceled, 499},
		{errors.New("boom"), 500},
	} {
		if got := statusOf(fmt.Errorf("w: %w", c.err)); got != c.status {
			t.Errorf("%v: page status %d, want %d", c.err, got, c.status)
		}
	}
}
