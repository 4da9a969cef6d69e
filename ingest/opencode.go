package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsonerr"
)

// SQLiteDriver is the database/sql driver OpenCode's database is read
// with. ingest does not register it: the program that imports OpenCode's
// sessions does (internal/service imports modernc.org/sqlite, a pure-Go
// driver), so that a program linking ingest for its tool-call rules alone
// (memex-hook) does not pay for SQLite's initialisation at every start
// (docs/performance.md, Hooks).
const SQLiteDriver = "sqlite"

const agentOpenCode = "opencode"

// ocSession, ocMessage and ocPart are the rows (or legacy JSON files) of
// an OpenCode store, reduced to what ingest uses.
type ocSession struct {
	ID        string `json:"id"`
	ParentID  string `json:"parentID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Created   int64
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
}

type ocMessage struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	ModelID   string `json:"modelID"`
	Created   int64
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Path struct {
		Cwd  string `json:"cwd"`
		Root string `json:"root"`
	} `json:"path"`
}

type ocPart struct {
	ID        string `json:"id"`
	MessageID string `json:"messageID"`
	Created   int64
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	CallID    string `json:"callID"`
	Tool      string `json:"tool"`
	Time      struct {
		Start int64 `json:"start"`
	} `json:"time"`
	State struct {
		Status   string          `json:"status"`
		Input    json.RawMessage `json:"input"`
		Output   string          `json:"output"`
		Error    string          `json:"error"`
		Title    string          `json:"title"`
		Metadata struct {
			Exit *int `json:"exit"`
		} `json:"metadata"`
		Time struct {
			Start int64 `json:"start"`
		} `json:"time"`
	} `json:"state"`
}

// isOpenCodeDir reports whether dir is an OpenCode data directory.
func isOpenCodeDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "opencode.db")); err == nil {
		return true
	}
	if fi, err := os.Stat(filepath.Join(dir, "storage", "session")); err == nil && fi.IsDir() {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, "session"))
	return filepath.Base(dir) == "storage" && err == nil && fi.IsDir()
}

// openCodeTarget is the database of an OpenCode data directory when it
// has one (the legacy tree was migrated into it), else its storage tree.
func openCodeTarget(dir string) (target, bool) {
	db := filepath.Join(dir, "opencode.db")
	if fi, err := os.Stat(db); err == nil {
		t := target{path: db, format: OpenCode, size: fi.Size(), mtime: fi.ModTime()}
		if w, err := os.Stat(db + "-wal"); err == nil {
			t.size += w.Size()
			if w.ModTime().After(t.mtime) {
				t.mtime = w.ModTime()
			}
		}
		return t, true
	}
	st := filepath.Join(dir, "storage")
	if filepath.Base(dir) == "storage" {
		st = dir
	}
	fi, err := os.Stat(st)
	if err != nil {
		return target{}, false
	}
	return target{path: st, format: OpenCode, mtime: fi.ModTime()}, true
}

// parseOpenCode reads an OpenCode store: a SQLite database (path ends in
// .db) opened read-only, or a legacy storage/ tree.
func parseOpenCode(ctx context.Context, s *source) error {
	var (
		sessions []ocSession
		messages map[string][]ocMessage
		parts    map[string][]ocPart
		err      error
	)
	if strings.HasSuffix(s.path, ".db") {
		var bad []ocBadRow
		sessions, messages, parts, bad, err = readOpenCodeDB(ctx, s.path)
		for _, b := range bad {
			s.skipf(0, "malformed json", "%s %s: malformed json: %s", b.table, b.id, jsonerr.Describe(b.err))
		}
	} else {
		sessions, messages, parts, err = readOpenCodeTree(s)
	}
	if err != nil {
		return err
	}
	for _, ses := range sessions {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		emitOpenCodeSession(s, ses, messages[ses.ID], parts)
	}
	return nil
}

func emitOpenCodeSession(s *source, ses ocSession, msgs []ocMessage, parts map[string][]ocPart) {
	sort.Slice(msgs, func(i, j int) bool {
		if msgs[i].Created != msgs[j].Created {
			return msgs[i].Created < msgs[j].Created
		}
		return msgs[i].ID < msgs[j].ID
	})
	dir := ses.Directory
	tools := 0
	clk := clock{fallback: msTime(ses.Created)}
	if clk.fallback.IsZero() {
		clk.fallback = s.mtime.UTC()
	}
	for _, m := range msgs {
		cwd := firstNonEmpty(m.Path.Root, m.Path.Cwd, dir)
		ps := parts[m.ID]
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID < ps[j].ID })
		for _, p := range ps {
			t := clk.at(msTime(firstPositive(p.State.Time.Start, p.Time.Start, p.Created, m.Created)))
			e := memex.Entry{
				Project: s.project(cwd), Session: ses.ID, Agent: agentOpenCode, Created: t,
				Aliases: []string{p.ID},
				Attrs:   attrs("cwd", firstNonEmpty(m.Path.Cwd, dir), "parent_session", ses.ParentID, "message_id", m.ID, "model", m.ModelID),
			}
			var body string
			switch p.Type {
			case "text":
				if !nonEmpty(p.Text) {
					s.ignore("empty text")
					continue
				}
				e.Kind = memex.KindMessage
				e.Attrs["role"] = m.Role
				if p.Synthetic {
					e.Attrs["synthetic"] = "true"
				}
				body = p.Text
			case "reasoning":
				if !nonEmpty(p.Text) {
					s.ignore("empty reasoning")
					continue
				}
				e.Kind = memex.KindReasoning
				body = p.Text
			case "tool":
				switch p.State.Status {
				case "completed":
					body = p.State.Output
					e.Exit = p.State.Metadata.Exit
					if e.Exit == nil {
						e.Exit = memex.IntPtr(0)
					}
				case "error":
					body = p.State.Error
					e.Exit = p.State.Metadata.Exit
					if e.Exit == nil {
						e.Exit = memex.IntPtr(1)
					}
				default:
					// pending or running: the next run archives it finished.
					s.ignore("tool:" + p.State.Status)
					continue
				}
				e.Kind = memex.KindTool
				e.Tool = p.Tool
				e.Input = ToolInput(p.State.Input)
				if p.CallID != "" {
					e.Aliases = append(e.Aliases, p.CallID, ToolKey(agentOpenCode, ses.ID, p.CallID))
				}
				e.Aliases = append(e.Aliases, toolAlias(ses.ID, tools))
				if p.State.Title != "" {
					e.Attrs["title"] = p.State.Title
				}
				tools++
			case "compaction":
				e.Kind = memex.KindEvent
				e.Attrs["event"] = "compaction"
				body = "compaction"
			default:
				s.ignore("part:" + p.Type)
				continue
			}
			rec := Record{Entry: e, Body: []byte(body), Key: "oc:" + p.ID}
			if p.Type == "tool" && p.CallID != "" {
				rec.HookKey = ToolKey(agentOpenCode, ses.ID, p.CallID)
			}
			s.emit(rec)
		}
	}
}

func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func firstPositive(v ...int64) int64 {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

// ocBadRow is a row of the message or part table whose data is not the
// JSON OpenCode writes: a message row keeps its ids and time (its parts
// are read), a part row is left out. Either is reported by table and id,
// the database's equivalent of a file's line.
type ocBadRow struct {
	table, id string
	err       error
}

// readOpenCodeDB reads every session with its messages and parts, and the
// rows whose data did not decode. The database is opened read-only (the
// host may be writing it, in WAL mode); when even that fails (no
// permission to create the -shm file), it is opened as immutable, which
// sees only what was checkpointed.
func readOpenCodeDB(ctx context.Context, path string) ([]ocSession, map[string][]ocMessage, map[string][]ocPart, []ocBadRow, error) {
	if !slices.Contains(sql.Drivers(), SQLiteDriver) {
		return nil, nil, nil, nil, fmt.Errorf("ingest: opencode %s: this program links no SQLite driver (import modernc.org/sqlite)", path)
	}
	var lastErr error
	for _, q := range []string{"mode=ro", "mode=ro&immutable=1"} {
		dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q + "&_pragma=busy_timeout(5000)"
		db, err := sql.Open(SQLiteDriver, dsn)
		if err != nil {
			lastErr = err
			continue
		}
		ss, ms, ps, bad, err := queryOpenCode(ctx, db)
		db.Close()
		if err == nil {
			return ss, ms, ps, bad, nil
		}
		lastErr = err
	}
	return nil, nil, nil, nil, fmt.Errorf("ingest: opencode %s: %v: %w", path, lastErr, memex.ErrCorrupt)
}

func queryOpenCode(ctx context.Context, db *sql.DB) ([]ocSession, map[string][]ocMessage, map[string][]ocPart, []ocBadRow, error) {
	var sessions []ocSession
	var bad []ocBadRow
	rows, err := db.QueryContext(ctx, `SELECT id, COALESCE(parent_id,''), COALESCE(directory,''), COALESCE(title,''), COALESCE(time_created,0) FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for rows.Next() {
		var s ocSession
		if err := rows.Scan(&s.ID, &s.ParentID, &s.Directory, &s.Title, &s.Created); err != nil {
			rows.Close()
			return nil, nil, nil, nil, err
		}
		sessions = append(sessions, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	messages := map[string][]ocMessage{}
	rows, err = db.QueryContext(ctx, `SELECT id, session_id, COALESCE(time_created,0), data FROM message`)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for rows.Next() {
		var m ocMessage
		var id, sid string
		var created int64
		var data []byte
		if err := rows.Scan(&id, &sid, &created, &data); err != nil {
			rows.Close()
			return nil, nil, nil, nil, err
		}
		if err := json.Unmarshal(data, &m); err != nil {
			bad = append(bad, ocBadRow{"message", id, err}) // it keeps its ids and time
		}
		m.ID, m.SessionID, m.Created = id, sid, firstPositive(created, m.Time.Created)
		messages[sid] = append(messages[sid], m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	parts := map[string][]ocPart{}
	rows, err = db.QueryContext(ctx, `SELECT id, message_id, COALESCE(time_created,0), data FROM part`)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p ocPart
		var id, mid string
		var created int64
		var data []byte
		if err := rows.Scan(&id, &mid, &created, &data); err != nil {
			return nil, nil, nil, nil, err
		}
		if err := json.Unmarshal(data, &p); err != nil {
			bad = append(bad, ocBadRow{"part", id, err})
			continue
		}
		p.ID, p.MessageID, p.Created = id, mid, created
		parts[mid] = append(parts[mid], p)
	}
	return sessions, messages, parts, bad, rows.Err()
}

// readOpenCodeTree reads the legacy JSON tree:
// storage/session/<projectID>/<sessionID>.json,
// storage/message/<sessionID>/<msgID>.json,
// storage/part/<msgID>/<partID>.json.
func readOpenCodeTree(s *source) ([]ocSession, map[string][]ocMessage, map[string][]ocPart, error) {
	root := s.path
	var sessions []ocSession
	messages := map[string][]ocMessage{}
	parts := map[string][]ocPart{}
	// readJSON decodes the file p into v, or warns, naming p (and the
	// line of the fault), and counts it skipped.
	readJSON := func(p string, v any) bool {
		b, err := os.ReadFile(p)
		if err != nil {
			s.rep.count(&s.rep.Skipped, "unreadable file", 1)
			s.opts.warn(fmt.Sprintf("%s: unreadable file: %v", p, err))
			return false
		}
		s.rep.Bytes += int64(len(b))
		if err := json.Unmarshal(b, v); err != nil {
			s.rep.count(&s.rep.Skipped, "malformed json", 1)
			where := p
			if n := docLine(b, err); n > 0 {
				where = fmt.Sprintf("%s:%d", p, n)
			}
			s.opts.warn(fmt.Sprintf("%s: malformed json: %s", where, jsonerr.Describe(err)))
			return false
		}
		return true
	}
	sesFiles, _ := filepath.Glob(filepath.Join(root, "session", "*", "*.json"))
	sort.Strings(sesFiles)
	for _, f := range sesFiles {
		var ses ocSession
		readJSON(f, &ses) // a bad session file keeps its messages, as a bad message file its parts
		if ses.ID == "" {
			ses.ID = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		ses.Created = ses.Time.Created
		sessions = append(sessions, ses)
		msgFiles, _ := filepath.Glob(filepath.Join(root, "message", ses.ID, "*.json"))
		for _, mf := range msgFiles {
			var m ocMessage
			// A message file that does not decode loses its own fields
			// (role, model, directory), not its parts: they are read
			// under the message id its name gives, as a database row's.
			readJSON(mf, &m)
			if m.ID == "" {
				m.ID = strings.TrimSuffix(filepath.Base(mf), ".json")
			}
			m.Created = m.Time.Created
			messages[ses.ID] = append(messages[ses.ID], m)
			partFiles, _ := filepath.Glob(filepath.Join(root, "part", m.ID, "*.json"))
			for _, pf := range partFiles {
				var p ocPart
				if !readJSON(pf, &p) {
					continue
				}
				if p.ID == "" {
					p.ID = strings.TrimSuffix(filepath.Base(pf), ".json")
				}
				parts[m.ID] = append(parts[m.ID], p)
			}
		}
	}
	return sessions, messages, parts, nil
}
