package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonscan"
)

// nested is a store whose one entry holds a field nested so that the
// entry is depth levels deep (its own object counted), in arrays or in
// objects, written as JSON or as JSON5 (a trailing comma).
func nested(depth int, objects, json5 bool) []byte {
	inner := depth - 1
	var deep string
	if objects {
		deep = strings.Repeat(`{"a":`, inner) + "1" + strings.Repeat("}", inner)
	} else {
		deep = strings.Repeat("[", inner) + strings.Repeat("]", inner)
	}
	tail := "}}"
	if json5 {
		tail = ",},}"
	}
	return []byte(`{"agent:main:main":{"sessionId":"s1","updatedAt":1,"deep":` + deep + tail)
}

// An entry nested deeper than encoding/json reads is corrupt state (exit
// 10), on the fast path and the general one alike; one at the limit is
// read and can be printed.
func TestAdversarialStoreNesting(t *testing.T) {
	for _, objects := range []bool{false, true} {
		for _, json5 := range []bool{false, true} {
			for _, depth := range []int{jsonscan.DefaultMaxDepth + 1, 100_000} {
				_, err := Parse("sessions.json", nested(depth, objects, json5))
				if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "nested deeper than 10000 levels") {
					t.Errorf("depth %d (objects %v, json5 %v): %v (exit %d), want exit 10", depth, objects, json5, err, apperr.CodeOf(err))
				}
			}
			s, err := Parse("sessions.json", nested(jsonscan.DefaultMaxDepth, objects, json5))
			if err != nil || len(s.Entries) != 1 {
				t.Fatalf("depth at the limit (objects %v, json5 %v): %v", objects, json5, err)
			}
			if _, err := json.Marshal(s.Entries[0].Raw); err != nil {
				t.Errorf("the entry at the limit cannot be printed: %v", err)
			}
		}
	}
}

// A row's entry JSON nested too deep (the SQLite era) is no valid session,
// as any other entry JSON that does not parse.
func TestAdversarialEntryMetaNesting(t *testing.T) {
	raw := nested(100_000, false, false)
	raw = raw[len(`{"agent:main:main":`) : len(raw)-1]
	if _, ok := EntryMeta(raw); ok {
		t.Error("EntryMeta took an entry nested 100,000 deep")
	}
	ok := nested(jsonscan.DefaultMaxDepth, false, false)
	ok = ok[len(`{"agent:main:main":`) : len(ok)-1]
	if m, isOK := EntryMeta(ok); !isOK || m.SessionID != "s1" {
		t.Error("EntryMeta refused an entry at the limit")
	}
}
