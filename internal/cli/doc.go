// Package cli is memex's command-line machinery that belongs to no one
// command: the exit codes and the one place that maps an error to them and
// prints it (in text, or as the JSON error line of a --json command),
// usage errors and the argument checks that raise them, the diagnosis of a
// command's flag given before the command's name, the reading of a name
// that starts with '-', flag values (a point in time), --json output, the
// progress bar and the pager, and the environment variables every command
// reads (MEMEX_LOCK_TIMEOUT). The build's version is internal/buildinfo's,
// which memex-hook shares.
//
// cmd/memex is its only importer; it knows cobra and the api's error codes
// but nothing of the store: no archive, index or home.
package cli
