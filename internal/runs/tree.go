package runs

// Node is one session of the spawn lineage tree: a requester, or a child
// with the run that spawned it.
type Node struct {
	SessionKey string  `json:"sessionKey"`
	RunID      string  `json:"runId,omitempty"`
	Label      string  `json:"label,omitempty"`
	Status     string  `json:"status,omitempty"`
	Outcome    string  `json:"outcome,omitempty"`
	CreatedAt  int64   `json:"createdAt,omitempty"`
	ArchivedAt int64   `json:"archivedAt,omitempty"`
	Source     string  `json:"source,omitempty"` // sessions | openclaw (children only)
	Children   []*Node `json:"children"`
}

// requesterKey is who spawned a run, as stored.
func requesterKey(r *Record) string {
	if r.Requester == nil {
		return "(unknown)"
	}
	return r.Requester.Key
}

// Tree groups spawn runs (newest first) under their requesters; a child
// that spawned (or was recorded as requester of) other runs carries them
// as its own children. Roots come in the order of their newest child.
func Tree(recs []*Record) []*Node {
	byChild := map[string]*Node{}
	var spawns []*Record
	for _, r := range recs {
		if r.Kind != KindSpawn {
			continue
		}
		spawns = append(spawns, r)
		n := &Node{SessionKey: r.Target.Key, RunID: r.RunID, Status: r.Status, CreatedAt: r.CreatedAt, Source: r.Source, Children: []*Node{}}
		if r.Spawn != nil {
			n.Label, n.Outcome, n.ArchivedAt = r.Spawn.Label, r.Spawn.Outcome, r.Spawn.ArchivedAt
		}
		byChild[r.Target.Key] = n
	}
	roots := []*Node{}
	rootOf := map[string]*Node{}
	for _, r := range spawns {
		n := byChild[r.Target.Key]
		pk := requesterKey(r)
		if p, ok := byChild[pk]; ok && p != n {
			p.Children = append(p.Children, n)
			continue
		}
		root := rootOf[pk]
		if root == nil {
			root = &Node{SessionKey: pk, Children: []*Node{}}
			rootOf[pk] = root
			roots = append(roots, root)
		}
		root.Children = append(root.Children, n)
	}
	return roots
}
