#!/usr/bin/env bash
# Makes a synthetic git history to measure memex ingest git on:
#   ingest/gitsynth.sh DIR [COMMITS]        # default 50,000 commits; docs/memory.md reports it
# Every commit edits 2 of 2,000 Go files (about 3 lines each, in files of 40
# to 60 lines) by one of 37 authors; every 50th adds a file; in each run of
# 200, commits 190-199 are on a side branch that the 200th merges; every
# 1,000th is tagged. Deterministic: the same arguments give the same hashes.
# Needs git and awk.
set -euo pipefail
dir=$1 n=${2:-50000}
git init -q -b main "$dir"
awk -v n="$n" '
function content(f, r,   s, i, len) {
	len = 40 + f % 21; s = ""
	for (i = 1; i <= len; i++) {
		if (i % 13 == r % 13 || i % 17 == r % 17 || i == 1 + r % len)
			s = s sprintf("\tx%d := compute(%d, %d) // rev %d\n", i, f, i, r)
		else
			s = s sprintf("\tx%d := compute(%d, %d)\n", i, f, i)
	}
	return sprintf("package p%d\n\nfunc F%d() {\n%s}\n", f % 50, f, s)
}
function blob(f, r,   c) {
	c = content(f, r)
	printf "M 644 inline pkg%02d/file%04d.go\ndata %d\n%s\n", f % 50, f, length(c), c
}
BEGIN {
	files = 2000; t = 1600000000
	for (i = 1; i <= n; i++) {
		t += 600 + (i * 7919) % 3600
		who = sprintf("Dev %d <dev%d@example.com> %d +0000", i % 37, i % 37, t)
		k = i % 200
		side = k >= 190
		printf "commit refs/heads/%s\nmark :%d\nauthor %s\ncommitter %s\n", side ? "side" : "main", i, who, who
		if (k == 0) msg = sprintf("Merge branch side (step %d)\n", i)
		else msg = sprintf("pkg%02d: change F%d and F%d (step %d)\n\nRefs #%d.\n", i % 50, (i * 31) % files, (i * 57 + 1) % files, i, i % 900)
		printf "data %d\n%s", length(msg), msg
		if (k == 0) printf "from :%d\nmerge :%d\n", i - 11, i - 1      # main tip 189, side tip 199
		else if (i > 1) printf "from :%d\n", i - 1
		if (k != 0) {
			blob((i * 31) % files, i); blob((i * 57 + 1) % files, i)
			if (i % 50 == 0) { files++; blob(files - 1, i) }
		}
		print ""
		if (i % 1000 == 0) printf "tag v%d.%d\nfrom :%d\ntagger %s\ndata 8\nrelease\n\n", i / 10000, (i / 1000) % 10, i, who
	}
}' | git -C "$dir" fast-import --quiet
git -C "$dir" checkout -q main
echo "$dir: $(git -C "$dir" rev-list --all --count) commits, $(git -C "$dir" rev-list --merges --all --count) merges, $(git -C "$dir" tag | wc -l) tags, $(du -sh "$dir/.git" | cut -f1) in .git"
