//go:build race

package summarize

// raceEnabled is set under the race detector, which slows the reference
// about tenfold: the exactness tests then sample their inputs (they run
// whole without it).
const raceEnabled = true
