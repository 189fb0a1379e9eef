package sqlitewrite

import (
	"database/sql"
)

// dbtx is what a write step runs its statements on: the *sql.Tx of a read,
// or a stx (the write transaction with the writer's prepared statements).
type dbtx interface {
	Exec(query string, args ...any) (sql.Result, error)
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

// stx is a write transaction that runs each statement through the
// writer's prepared copy when it has one. Parsing the SQL of a turn's ~25
// statements was half of the time a turn held the write lock; they are
// prepared once per Writer, on its one connection, while it is idle
// (prepareWanted, before BEGIN IMMEDIATE), and only bound and stepped
// inside. A statement not prepared yet runs as before and is prepared
// before the next step.
type stx struct {
	*sql.Tx
	w *Writer
}

func (t stx) stmt(q string) *sql.Stmt {
	if s := t.w.stmts[q]; s != nil {
		return t.Tx.Stmt(s)
	}
	if t.w.wanted == nil {
		t.w.wanted = map[string]bool{}
	}
	t.w.wanted[q] = true
	return nil
}

func (t stx) Exec(q string, args ...any) (sql.Result, error) {
	if s := t.stmt(q); s != nil {
		return s.Exec(args...)
	}
	return t.Tx.Exec(q, args...)
}

func (t stx) QueryRow(q string, args ...any) *sql.Row {
	if s := t.stmt(q); s != nil {
		return s.QueryRow(args...)
	}
	return t.Tx.QueryRow(q, args...)
}

func (t stx) Query(q string, args ...any) (*sql.Rows, error) {
	if s := t.stmt(q); s != nil {
		return s.Query(args...)
	}
	return t.Tx.Query(q, args...)
}

// prepareWanted prepares the statements the last steps ran unprepared, on
// the idle connection. A statement SQLite will not prepare (it runs
// unprepared again) is not an error here: the step itself reports it.
func (w *Writer) prepareWanted() {
	for q := range w.wanted {
		if s, err := w.conn.Prepare(q); err == nil {
			if w.stmts == nil {
				w.stmts = map[string]*sql.Stmt{}
			}
			w.stmts[q] = s
		}
		delete(w.wanted, q)
	}
}

// closeStmts finalizes the prepared statements (before the connection
// closes).
func (w *Writer) closeStmts() {
	for q, s := range w.stmts {
		s.Close()
		delete(w.stmts, q)
	}
}
