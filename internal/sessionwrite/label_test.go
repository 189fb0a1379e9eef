package sessionwrite

import (
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/era"
)

// A 2026.1.30 agent's label: trimmed, 1-64 UTF-16 code units.
func TestParseLabel(t *testing.T) {
	for in, want := range map[string]string{
		"  standup ":            "standup",
		strings.Repeat("a", 64): strings.Repeat("a", 64),
		strings.Repeat("é", 64): strings.Repeat("é", 64), // 64 UTF-16 units
	} {
		if got, err := ParseLabel(era.JSON, in); err != nil || got != want {
			t.Errorf("ParseLabel(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "   ", strings.Repeat("a", 65), strings.Repeat("😀", 33) /* 66 UTF-16 units */} {
		if _, err := ParseLabel(era.JSON, in); err == nil {
			t.Errorf("ParseLabel(%q) accepted", in)
		}
	}
}
