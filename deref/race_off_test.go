//go:build !race

package deref

const raceEnabled = false
