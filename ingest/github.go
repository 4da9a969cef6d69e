package ingest

import "context"

func runGitHub(ctx context.Context, r *runner) error { return nil }
