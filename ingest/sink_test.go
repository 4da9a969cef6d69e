package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// memSink is an in-memory Sink with the archive's alias semantics, so
// parser tests need no store. The archive itself is exercised by the
// integration test in archive_sink_test.go.
type memSink struct {
	mu      sync.Mutex
	entries []memex.Entry
	bodies  map[memex.ID][]byte
	aliases map[string][]memex.ID
	state   map[string][]byte
}

var _ Sink = (*memSink)(nil)

func newMemSink() *memSink {
	return &memSink{bodies: map[memex.ID][]byte{}, aliases: map[string][]memex.ID{}, state: map[string][]byte{}}
}

func (m *memSink) Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return memex.Entry{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e.Created.IsZero() {
		e.Created = time.Now()
	}
	if e.ID.IsZero() {
		e.ID = memex.NewID(e.Created)
	}
	e.Bytes = int64(len(b))
	m.entries = append(m.entries, e)
	m.bodies[e.ID] = b
	for _, a := range e.Aliases {
		if memex.LooksLikeID(a) {
			return memex.Entry{}, fmt.Errorf("alias %q: %w", a, memex.ErrInvalid)
		}
		m.aliases[a] = append(m.aliases[a], e.ID)
	}
	return e, nil
}

// Lookup is the archive's: the newest entry of project written under
// alias.
func (m *memSink) Lookup(ctx context.Context, alias, project string) (memex.ID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.aliases[alias]) - 1; i >= 0; i-- {
		id := m.aliases[alias][i]
		for _, e := range m.entries {
			if e.ID == id && (project == "" || e.Project == "" || e.Project == project) {
				return id, nil
			}
		}
	}
	return memex.ID{}, fmt.Errorf("%s: %w", alias, memex.ErrNotFound)
}

func (m *memSink) GetState(ctx context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.state[key]
	if !ok {
		return nil, memex.ErrNotFound
	}
	return bytes.Clone(v), nil
}

func (m *memSink) SetState(ctx context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state[key] = bytes.Clone(value)
	return nil
}

// byAlias returns the entry holding alias a and its body.
func (m *memSink) byAlias(t *testing.T, a string) (memex.Entry, string) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := m.aliases[a]
	if len(ids) != 1 {
		t.Fatalf("alias %q names %d entries", a, len(ids))
	}
	for _, e := range m.entries {
		if e.ID == ids[0] {
			return e, string(m.bodies[e.ID])
		}
	}
	t.Fatalf("alias %q: entry missing", a)
	return memex.Entry{}, ""
}

// session returns a session's entries in ID order.
func (m *memSink) session(name string) []memex.Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []memex.Entry
	for _, e := range m.entries {
		if e.Session == name {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID.Compare(out[j].ID) < 0 })
	return out
}

func (m *memSink) body(id memex.ID) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return string(m.bodies[id])
}

func kinds(es []memex.Entry) string {
	var k []string
	for _, e := range es {
		s := string(e.Kind)
		if e.Tool != "" {
			s += ":" + e.Tool
		}
		k = append(k, s)
	}
	return strings.Join(k, " ")
}
