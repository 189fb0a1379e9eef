package hoststat

import "github.com/openclaw/sessions/internal/dirstat"

// The batched lstat of a listed directory's files lives in
// internal/dirstat (a leaf: internal/transcripts uses it too); these are
// its names as hoststat's readers know them.
type (
	// Stat is dirstat.Stat.
	Stat = dirstat.Stat
	// Names is dirstat.Names.
	Names = dirstat.Names
)

// NewNames is dirstat.NewNames.
func NewNames(names []string) *Names { return dirstat.NewNames(names) }

// StatNames is dirstat.StatNames.
func StatNames(dir string, names *Names) ([]Stat, error) { return dirstat.StatNames(dir, names) }
