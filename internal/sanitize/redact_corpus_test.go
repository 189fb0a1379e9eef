package sanitize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// redactCase is one case of testdata/redact/corpus.json: a text and the
// config's logging.redactPatterns (none: the defaults alone).
type redactCase struct {
	In       string   `json:"in"`
	Patterns []string `json:"patterns,omitempty"`
}

func readRedactCorpus(t *testing.T) ([]redactCase, []string) {
	t.Helper()
	cases, want, err := readRedactCorpusFile()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != len(want) {
		t.Fatalf("corpus.json has %d cases, expected.json %d outputs", len(cases), len(want))
	}
	return cases, want
}

func readRedactCorpusFile() ([]redactCase, []string, error) {
	var cases []redactCase
	var want []string
	for name, v := range map[string]any{"corpus.json": &cases, "expected.json": &want} {
		data, err := os.ReadFile(filepath.Join("testdata", "redact", name))
		if err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
	}
	return cases, want, nil
}

// TestRedactCorpus: every case of the corpus is masked exactly as OpenClaw
// 2026.9.6's redactToolPayloadText masked it (expected.json is its output:
// testdata/redact/openclaw.mjs, checked by TestRedactCorpusInterop) — by
// the Redactor without its edge pass, on every case; and by the Redactor
// agents get on every case but those where 9.6 leaves a secret across a
// chunk edge (beyondEdges), where it gives 9.6's output with that secret
// masked too.
func TestRedactCorpus(t *testing.T) {
	cases, want := readRedactCorpus(t)
	for i, c := range cases {
		r := NewRedactor(c.Patterns, nil)
		as96 := *r
		as96.as96 = true
		got, changed := as96.Redact(c.In)
		if got != want[i] {
			t.Errorf("case %d: Redact(%q)\n  = %q\n  OpenClaw: %q", i, c.In, got, want[i])
		}
		if changed != (got != c.In) {
			t.Errorf("case %d: changed = %v", i, changed)
		}
		wantAgent := want[i]
		if edge, ok := beyondEdges[i]; ok {
			wantAgent = strings.Replace(want[i], edge[0], edge[1], 1)
			if wantAgent == want[i] {
				t.Fatalf("case %d: %q is not in 9.6's output", i, edge[0])
			}
		}
		if got, _ := r.Redact(c.In); got != wantAgent {
			t.Errorf("case %d: with the edge pass, Redact(%q)\n  = %q\n  want %q", i, c.In, got, wantAgent)
		}
	}
}

// beyondEdges: the corpus cases where 9.6 leaves a token across a chunk
// edge as it is, and what it becomes here.
var beyondEdges = map[int][2]string{
	478: {" sk-abcdefghijklmnop1234 ", " sk-abc…1234 "},
}

// No default pattern matches the empty string (they take Go's FindAll).
func TestDefaultsNeverMatchEmpty(t *testing.T) {
	for i, p := range compiledDefaults() {
		if p.canEmpty || p.re.MatchString("") {
			t.Errorf("default %d (%s) can match the empty string", i, p.re)
		}
	}
}

// A configured pattern OpenClaw's safe-regex check refuses is left out,
// with a warning naming it; the others still mask.
func TestRedactUnsafeUserPattern(t *testing.T) {
	var warnings []string
	r := NewRedactor([]string{"(a+)+", "zz-[0-9]+", "never-unsafe-list-marker"}, func(m string) { warnings = append(warnings, m) })
	if got, _ := r.Redact("aaaa zz-123"); got != "aaaa ***" {
		t.Errorf("Redact = %q", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "unsafe") || !strings.Contains(warnings[0], "(a+)+") {
		t.Errorf("warnings = %q", warnings)
	}
}
