package archive

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/memex-archive/memex"
)

// maxListed is how many sessions an ambiguous prefix's error lists.
const maxListed = 10

// ResolveSession completes a session name given by a prefix of it, as
// users type the first characters of a UUID (memex replay 5f0c2a91). A ref
// whose name is a session's own, or is no session's prefix, is returned as
// it is (Session then reads it, or says it is not found); one whose name
// starts the names of several sessions of ref's project and agent (empty:
// any) is memex.ErrAmbiguous, listing them. The names of the sessions that
// match are read, not their entries: the cost grows with those sessions,
// not with the archive.
func (s *Store) ResolveSession(ctx context.Context, ref memex.SessionRef) (memex.SessionRef, error) {
	if ref.Session == "" {
		return ref, nil
	}
	found, err := s.sessionsPrefixed(ctx, ref)
	if err != nil {
		return ref, fmt.Errorf("archive: session %s: %w", quoted(ref), err)
	}
	names := map[string]bool{}
	for _, r := range found {
		if r.Session == ref.Session {
			return ref, nil
		}
		names[r.Session] = true
	}
	switch len(names) {
	case 0:
		return ref, nil
	case 1:
		ref.Session = found[0].Session
		return ref, nil
	}
	slices.SortFunc(found, compareRefs)
	var list []string
	for i, r := range found {
		if i == maxListed {
			list = append(list, fmt.Sprintf("and %d more", len(found)-maxListed))
			break
		}
		list = append(list, fmt.Sprintf("%s (agent %s, %s)", r.Session, cmp.Or(r.Agent, "none"), projectName(r.Project)))
	}
	narrow := "give more of the name"
	if ref.Project == "" {
		narrow += ", or the project (--project)"
	}
	return ref, fmt.Errorf("archive: %w", memex.Errorf(memex.ErrAmbiguous, "session prefix %q starts %d sessions: %s",
		ref.Session, len(found), strings.Join(list, ", ")).WithHint(narrow))
}

// sessionsPrefixed lists the sessions whose name starts with ref.Session
// and whose project and agent ref admits (as Session admits them: an
// entry of no project is of any). Session keys sort by the length prefix
// of the name, then the name: the iterator visits each length once, and
// within a length long enough seeks to the names that start with the
// prefix, skipping past each session once seen.
func (s *Store) sessionsPrefixed(ctx context.Context, ref memex.SessionRef) ([]memex.SessionRef, error) {
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: []byte{prefixSession}, UpperBound: []byte{prefixSession + 1}})
	if err != nil {
		return nil, dbErr(err)
	}
	defer it.Close()
	seen := map[memex.SessionRef]bool{}
	var out []memex.SessionRef
	for valid := it.First(); valid; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, w := binary.Uvarint(it.Key()[1:])
		if w <= 0 {
			break // not a session key of this schema: nothing after it is either
		}
		group := append([]byte(nil), it.Key()[:1+w]...) // the key is the iterator's until it moves
		if int(n) >= len(ref.Session) {
			lo := append(group[:len(group):len(group)], ref.Session...)
			for valid = it.SeekGE(lo); valid && bytes.HasPrefix(it.Key(), lo); {
				name, rest, ok := keyName(it.Key())
				if !ok {
					break
				}
				full, _, ok, err := s.sessionOf(name, rest)
				if err != nil {
					return nil, err
				}
				if ok && !seen[full] && (ref.Agent == "" || full.Agent == ref.Agent) &&
					(ref.Project == "" || full.Project == "" || full.Project == ref.Project) {
					seen[full] = true
					out = append(out, full)
				}
				if len(rest) > len(memex.ID{}) {
					// The rest of this session's keys share all but the ID.
					k := it.Key()
					valid = it.SeekGE(prefixEnd(k[:len(k)-len(memex.ID{})]))
				} else {
					valid = it.Next() // a version 2 key: its scope is in the record
				}
			}
		}
		valid = it.SeekGE(prefixEnd(group))
	}
	if err := it.Error(); err != nil {
		return nil, dbErr(err)
	}
	return out, nil
}
