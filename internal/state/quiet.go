package state

// Quiet is s with its warnings dropped, sharing its stores: for a read
// whose warnings are not the operation's own (the search index's catch-up
// lists every transcript of the state dir, beyond what the search reads).
func (s *State) Quiet() *State {
	q := *s
	q.warn = func(string) {}
	return &q
}
