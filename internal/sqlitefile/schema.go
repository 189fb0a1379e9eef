package sqlitefile

import "encoding/binary"

// Table finds table name in the snapshot's schema (sqlite_schema, the
// table b-tree on page 1): its root page and its CREATE TABLE statement.
// found is false when there is no such table.
func (s *Snapshot) Table(name string) (root uint32, sql string, found bool, err error) {
	root, _, sql, found, err = s.object("table", name)
	return root, sql, found, err
}

// Index finds index name in the snapshot's schema: its root page, the
// table it indexes and its CREATE INDEX statement (empty for the index
// SQLite makes for a PRIMARY KEY or UNIQUE constraint). found is false when
// there is no such index.
func (s *Snapshot) Index(name string) (root uint32, table, sql string, found bool, err error) {
	return s.object("index", name)
}

// object finds the schema's row of type typ named name.
func (s *Snapshot) object(typ, name string) (root uint32, table, sql string, found bool, err error) {
	leaves, err := s.Leaves(1)
	if err != nil {
		return 0, "", "", false, err
	}
	var a Arena
	err = s.ScanLeaves(leaves, []int{0, 1, 2, 3, 4}, &a, func(_ int64, v []Value) error {
		if found || v[0].Kind != Text || string(v[0].Bytes) != typ || v[1].Kind != Text || string(v[1].Bytes) != name {
			return nil
		}
		if v[3].Kind != Int || v[3].Int <= 0 || v[3].Int > int64(s.nPages) {
			return corruptf("%s %s has root page %v", typ, name, v[3].Int)
		}
		found, root = true, uint32(v[3].Int)
		if v[2].Kind == Text {
			table = string(v[2].Bytes)
		}
		if v[4].Kind == Text {
			sql = string(v[4].Bytes)
		}
		return nil
	})
	if err != nil {
		return 0, "", "", false, err
	}
	return root, table, sql, found, nil
}

// SchemaCookie returns the snapshot's schema cookie (the database header's
// offset 40), which SQLite changes with every change of the schema —
// a table or index created, dropped or altered, a VACUUM that moves root
// pages: what was found in the schema holds while it is the same.
func (s *Snapshot) SchemaCookie() (cookie uint32, err error) {
	err = s.protect(func() error {
		p1, err := s.page(1)
		if err != nil {
			return err
		}
		cookie = binary.BigEndian.Uint32(p1[40:])
		return nil
	})
	return cookie, err
}
