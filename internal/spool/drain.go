package spool

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"

	"github.com/memex-archive/memex"
)

// Drainer does the work of spooled items for Drain.
type Drainer struct {
	// Archived reports whether the archive holds a spooled entry already
	// (a drain interrupted after the add, or the import that got there
	// first): its item is then dropped. An error stops the drain.
	Archived func(ctx context.Context, e memex.Entry) (bool, error)
	// Add archives a spooled entry with its body as it is: it went
	// through the write policy when it was spooled (or was asked to be
	// kept as it is). Its error stops the drain, the item kept, unless
	// it is memex.ErrInvalid (the archive refuses the item itself): that
	// item is then kept as .bad, logged, and the drain goes on.
	Add func(ctx context.Context, e memex.Entry, body io.Reader) error
	// Ingest imports a spooled transcript; its error is logged and the
	// item dropped (the next import of the host's transcripts reads it).
	Ingest func(ctx context.Context, format, path string) error
	// Log is told of an item that could not be read or was refused
	// (kept as .bad) or could not be imported; nil logs nothing.
	Log func(path string, err error)
	// Sync, when set, makes the work done so far durable: the items are
	// then removed after a Sync, not one by one after each Add (for a
	// store opened without a sync per add). Nil: each Add is durable.
	Sync func() error
}

// Drain does the work dir's spool holds, oldest first, removing each
// item once its work is durable: the entries hooks spooled while the store
// was busy, the transcripts they could not import, and the output of a
// memex run that ended (or was killed) before it could archive it. A run
// in progress is left alone, and so is an item another drainer took first.
// With d.Sync, entries are added in a batch and their items removed after
// one Sync.
func Drain(ctx context.Context, dir string, d Drainer) error {
	items, err := List(dir)
	if err != nil || len(items) == 0 {
		return err
	}
	log := d.Log
	if log == nil {
		log = func(string, error) {}
	}
	var added []Spooled
	durable := func() error {
		if len(added) == 0 {
			return nil
		}
		if err := d.Sync(); err != nil {
			return err
		}
		for _, sp := range added {
			sp.Done()
		}
		added = added[:0]
		return nil
	}
	// refused sets aside an item the archive refuses for what it is: it
	// would be refused at every drain and hold back every item after it.
	refused := func(sp Spooled, err error) bool {
		if !errors.Is(err, memex.ErrInvalid) {
			return false
		}
		log(sp.Path, err)
		sp.Bad()
		return true
	}
	for _, sp := range items {
		if err := ctx.Err(); err != nil {
			return errors.Join(err, durable())
		}
		switch {
		case sp.Output != "":
			if err := durable(); err != nil {
				return err
			}
			if err := drainRun(ctx, sp, d); err != nil && !refused(sp, err) {
				return err
			}
			continue
		case sp.Err != nil:
			if _, err := os.Stat(sp.Path); err != nil {
				continue // taken by another drainer
			}
			log(sp.Path, sp.Err)
			sp.Bad()
			continue
		case sp.Item.Entry != nil:
			done, err := d.Archived(ctx, *sp.Item.Entry)
			if err == nil && !done {
				err = d.Add(ctx, *sp.Item.Entry, bytes.NewReader(sp.Item.Content))
			}
			if refused(sp, err) {
				continue
			}
			if err != nil {
				return errors.Join(err, durable())
			}
			if d.Sync != nil {
				added = append(added, sp)
				continue
			}
		case sp.Item.Ingest != "":
			if err := durable(); err != nil {
				return err
			}
			if err := d.Ingest(ctx, sp.Item.Format, sp.Item.Ingest); err != nil {
				log(sp.Path, err)
			}
			if d.Sync != nil {
				if err := d.Sync(); err != nil {
					return err
				}
			}
		}
		sp.Done()
	}
	return durable()
}

// drainRun archives the output of a memex run under the entry spooled
// beside it (without an exit status when the run was killed first; a run
// killed before it wrote its entry gets one, dated by its output).
func drainRun(ctx context.Context, sp Spooled, d Drainer) error {
	if sp.Running() {
		return nil
	}
	e := memex.Entry{Agent: "cli", Kind: memex.KindTool, Tool: "run"}
	if sp.Item.Entry != nil {
		e = *sp.Item.Entry
	}
	if e.ID.IsZero() {
		fi, err := os.Stat(sp.Output)
		if err != nil {
			return nil // taken by another drainer
		}
		e.ID, e.Created = memex.NewID(fi.ModTime()), fi.ModTime()
	}
	done, err := d.Archived(ctx, e)
	if err != nil {
		return err
	}
	if !done {
		f, err := os.Open(sp.Output)
		if err != nil {
			return nil // taken by another drainer
		}
		err = d.Add(ctx, e, f)
		f.Close()
		if err == nil && d.Sync != nil {
			err = d.Sync()
		}
		if err != nil {
			return err
		}
	}
	sp.Done()
	return nil
}
