//go:build race

package deref

// raceEnabled: the race detector allocates beside every allocation the
// code makes, so bounds on what a read allocates are looser under it.
const raceEnabled = true
