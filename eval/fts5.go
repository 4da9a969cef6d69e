package eval

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"

	_ "modernc.org/sqlite" // pure-Go SQLite with FTS5: no cgo
)

// fts5Index is the SQLite FTS5 baseline of a retrieval run: the raw turns
// of one haystack in an in-memory FTS5 table (the default unicode61
// tokenizer, no stemming, no stop words), a question asked as the OR of
// its words and ranked by FTS5's bm25, as an application that keeps its
// text in SQLite would search it.
type fts5Index struct {
	db  *sql.DB
	tx  *sql.Tx
	ins *sql.Stmt
}

func newFTS5(ctx context.Context) (*fts5Index, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("eval: fts5: %w", err)
	}
	db.SetMaxOpenConns(1) // one in-memory database, not one per connection
	f := &fts5Index{db: db}
	if _, err := db.ExecContext(ctx, "CREATE VIRTUAL TABLE turns USING fts5(id UNINDEXED, text)"); err != nil {
		db.Close()
		return nil, fmt.Errorf("eval: fts5: %w", err)
	}
	if f.tx, err = db.BeginTx(ctx, nil); err == nil {
		f.ins, err = f.tx.PrepareContext(ctx, "INSERT INTO turns(id, text) VALUES (?, ?)")
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("eval: fts5: %w", err)
	}
	return f, nil
}

// add inserts one turn; commit ends the load.
func (f *fts5Index) add(ctx context.Context, id, text string) error {
	if _, err := f.ins.ExecContext(ctx, id, text); err != nil {
		return fmt.Errorf("eval: fts5: %w", err)
	}
	return nil
}

func (f *fts5Index) commit() error {
	f.ins.Close()
	if err := f.tx.Commit(); err != nil {
		return fmt.Errorf("eval: fts5: %w", err)
	}
	return nil
}

// count is the number of turns loaded.
func (f *fts5Index) count(ctx context.Context) (int, error) {
	var n int
	err := f.db.QueryRowContext(ctx, "SELECT count(*) FROM turns").Scan(&n)
	return n, err
}

// search returns the ids of the best limit turns for question.
func (f *fts5Index) search(ctx context.Context, question string, limit int) ([]string, error) {
	q := fts5Query(question)
	if q == "" {
		return nil, nil
	}
	rows, err := f.db.QueryContext(ctx, "SELECT id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?", q, limit)
	if err != nil {
		return nil, fmt.Errorf("eval: fts5 search %q: %w", q, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (f *fts5Index) close() error { return f.db.Close() }

// fts5Query is question as an FTS5 query: each distinct word (a run of
// letters and digits) quoted, joined by OR.
func fts5Query(question string) string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !seen[w] {
			seen[w] = true
			terms = append(terms, `"`+w+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}
