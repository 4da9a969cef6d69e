//go:build !race

package summarize

// raceEnabled is set under the race detector; see tokens_race_test.go.
const raceEnabled = false
