package ops

import "github.com/openclaw/sessions/internal/hostread"

// CloseSearchIndexes closes the search indexes this process keeps open
// between searches (hostread keeps each open for the life of the
// process, so that a long-lived front-end — the terminal UI's search as
// you type — asks a warm index on every key). A long-lived front-end
// calls it as it ends; the next search opens them again.
func CloseSearchIndexes() error { return hostread.CloseIndexes() }
