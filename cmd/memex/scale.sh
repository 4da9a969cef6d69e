#!/usr/bin/env bash
# Runs BenchmarkIngestScale (scale_test.go) at the sizes docs/performance.md
# reports, one size per process, and keeps its output beside the load.
#   cmd/memex/scale.sh            # 10, 50, 100 and 500 MB
#   cmd/memex/scale.sh 50 500     # chosen sizes
# The inputs are made from ../shared/corpora under $MEMEX_SCALE_DIR (default
# $TMPDIR/memex-scale) the first time and reused; they take about 1.1x their
# size on disk, and each run's stores as much again while it runs.
set -euo pipefail
cd "$(dirname "$0")"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 50 100 500)
for mb in "${sizes[@]}"; do
	echo "== $(date -u +%FT%TZ) uptime: $(uptime)"
	MEMEX_SCALE_MB=$mb go test -run '^$' -bench "IngestScale/${mb}MB" -benchtime 1x -timeout 2h .
done
