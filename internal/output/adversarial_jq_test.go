package output

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var errEnough = errors.New("enough")

// cutWriter records what is written and refuses the write after n: a
// reader that read the first results and went away.
type cutWriter struct {
	n   int
	got []string
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if len(c.got) == c.n {
		return 0, errEnough
	}
	c.got = append(c.got, string(p))
	return len(p), nil
}

// A generator that never ends prints as it goes: its first results are
// written before it is cut off (they were held until an end that never
// came).
func TestAdversarialJQStreamsAnEndlessGenerator(t *testing.T) {
	for _, expr := range []string{"range(infinite)", "repeat(1)", ".a as $x | range(infinite) | {n: ., a: $x}"} {
		code, err := CompileJQ(expr)
		if err != nil {
			t.Fatal(err)
		}
		w := &cutWriter{n: 3}
		done := make(chan error, 1)
		go func() { done <- JQLine(w, code, map[string]any{"a": 1}) }()
		select {
		case err := <-done:
			if !errors.Is(err, errEnough) {
				t.Errorf("%s: %v, want the writer's error", expr, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: nothing written after 10 s (results held until the end)", expr)
		}
		if len(w.got) != 3 {
			t.Errorf("%s: %d writes, want 3", expr, len(w.got))
		}
		for _, line := range w.got {
			if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
				t.Errorf("%s: a write is not one result line: %q", expr, line)
			}
		}
	}
}

// An error midway comes after the results before it, which are printed.
func TestAdversarialJQErrorMidway(t *testing.T) {
	code, err := CompileJQ(`.[] | if . == 3 then error("boom") else . end`)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = JQ(&b, code, []int{1, 2, 3, 4})
	if err == nil || !strings.Contains(err.Error(), "--jq: error: boom") {
		t.Errorf("error %v, want --jq: error: boom", err)
	}
	if b.String() != "1\n2\n" {
		t.Errorf("printed %q, want the two results before the error", b.String())
	}
}
