package cmdutil

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A bar on a fake terminal: the first report drawn, redraws at most every
// 100 ms (by the clock it is given), the time left at the pace so far once
// a second has passed, and the
// end drawn whole with a newline.
func TestProgressBytes(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, "index")
	now := time.Unix(0, 0)
	p.now = func() time.Time { return now }
	step := func(d time.Duration, n, total int64, done bool) string {
		now = now.Add(d)
		b.Reset()
		p.Bytes(n, total, done)
		return b.String()
	}
	const total = 400 << 20
	if got := step(0, 0, total, false); got != "\rindex: [····················]   0%  0 B / 400.0 MiB  ETA -:--" {
		t.Errorf("first: %q", got)
	}
	if got := step(50*time.Millisecond, 10<<20, total, false); got != "" {
		t.Errorf("redrawn within 100 ms: %q", got)
	}
	// 2 s for a quarter: 6 s left.
	if got := step(1950*time.Millisecond, 100<<20, total, false); got != "\rindex: [#####···············]  25%  100.0 MiB / 400.0 MiB  ETA 0:06" {
		t.Errorf("a quarter: %q", got)
	}
	got := step(6*time.Second, total, total, true)
	if !strings.HasPrefix(got, "\rindex: [####################] 100%  400.0 MiB / 400.0 MiB  in 0:08") || !strings.HasSuffix(got, "\n") {
		t.Errorf("done: %q", got)
	}

	// Done before anything was shown: nothing.
	b.Reset()
	q := NewProgress(&b, "index")
	q.Bytes(5, 5, true)
	if b.Len() != 0 {
		t.Errorf("a build that showed nothing: %q", b.String())
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 400 << 20: "400.0 MiB", 3<<30 + 1<<29: "3.5 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
