package sqlitefile

// Table finds table name in the snapshot's schema (sqlite_schema, the
// table b-tree on page 1): its root page and its CREATE TABLE statement.
// found is false when there is no such table.
func (s *Snapshot) Table(name string) (root uint32, sql string, found bool, err error) {
	leaves, err := s.Leaves(1)
	if err != nil {
		return 0, "", false, err
	}
	var a Arena
	err = s.ScanLeaves(leaves, []int{0, 1, 3, 4}, &a, func(_ int64, v []Value) error {
		if found || v[0].Kind != Text || string(v[0].Bytes) != "table" || v[1].Kind != Text || string(v[1].Bytes) != name {
			return nil
		}
		if v[2].Kind != Int || v[2].Int <= 0 || v[2].Int > int64(s.nPages) {
			return corruptf("table %s has root page %v", name, v[2].Int)
		}
		found, root = true, uint32(v[2].Int)
		if v[3].Kind == Text {
			sql = string(v[3].Bytes)
		}
		return nil
	})
	if err != nil {
		return 0, "", false, err
	}
	return root, sql, found, nil
}
