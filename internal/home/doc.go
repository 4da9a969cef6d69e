// Package home owns $MEMEX_HOME: the lock, the store and the index opened
// under it, the spool, the file that names a running server, the bearer
// token, and the modes of all of them. Nothing else in memex opens the store
// or the index of a home (internal/lint keeps that true).
//
// # Layout
//
//	$MEMEX_HOME/lock        the lock every process takes (flock)
//	$MEMEX_HOME/store/      the archive (Pebble)
//	$MEMEX_HOME/index/      the search index (bleve), derived from the store
//	$MEMEX_HOME/spool/      work left for the next process that holds the store
//	$MEMEX_HOME/serve.addr  the running server's address, and its token file
//	$MEMEX_HOME/serve.key   the running server's owner key (see api.Options.Key)
//	$MEMEX_HOME/token       the bearer token serve creates off loopback
//	$MEMEX_HOME/ballast     32 MiB held back on the disk, given up when it fills
//
// store/, index/ and spool/ are directories of mode 0700, token and
// serve.addr files of mode 0600, whatever the mode of the home itself: every
// Open that may write creates them so or tightens them (a home made 0755 by
// hand, or by an older memex), and Modes reports what is wider.
//
// # The lock contract
//
// One lock, $MEMEX_HOME/lock, held for as long as a Home is open:
//
//   - a writer (Options.Shared false) holds it exclusively and opens the
//     store for writing; it writes what it is doing into the lock file, so
//     that a process waiting for it can say what it waits for;
//   - a reader (Options.Shared) holds it shared and opens the store
//     read-only without Pebble's own directory lock: readers never wait for
//     each other, create nothing and work on a read-only filesystem; a home
//     with no store is ErrNoStore (which is memex.ErrNotFound), not an empty
//     store created by mistake;
//   - a process that cannot take the lock waits up to Options.Wait, calling
//     Options.OnWait once after WaitNotice with what holds it, then fails
//     with memex.ErrBusy naming the holder;
//   - `memex serve` is a writer that never lets go: while serve.addr names
//     a server that answers, other processes send their work to it
//     (api.Client) instead of waiting.
//
// A waiter wakes the moment the holder exits: the kernel releases a flock
// with the process, so a killed holder never leaves the home locked.
package home
