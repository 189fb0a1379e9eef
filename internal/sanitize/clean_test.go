package sanitize

import (
	"strings"
	"testing"
)

// A text remembered as clean answers as Redact does; a text masking
// changes is masked, and recorded, every time (for every copy).
func TestCleanSetRemembersOnlyWhatMaskingLeaves(t *testing.T) {
	r, _, _ := compileRedactor(nil)
	clean := "agent:main:telegram:dm:42"
	secret := "token sk-ant-api03-" + strings.Repeat("a", 40)
	for i := 0; i < 3; i++ {
		if out, changed := r.Redact(clean); changed || out != clean {
			t.Fatalf("call %d: Redact(%q) = %q, %v", i, clean, out, changed)
		}
	}
	if !r.clean.has(clean) {
		t.Fatalf("a clean text is not remembered")
	}
	var recorded []string
	rec := r.Recording(func(m string) { recorded = append(recorded, m) })
	first, changed := rec.Redact(secret)
	if !changed || first == secret {
		t.Fatalf("the secret is not masked: %q", first)
	}
	second, _ := rec.Redact(secret)
	if second != first || len(recorded) != 2 {
		t.Fatalf("a masked text is masked and recorded each time: %q %q, recorded %d", first, second, len(recorded))
	}
	if r.clean.has(secret) {
		t.Fatalf("a text masking changes is remembered as clean")
	}
	// the 9.6 copy masks on its own
	as96 := *r
	as96.as96 = true
	if as96.cleanSet() != nil {
		t.Fatalf("the 9.6 copy shares the set")
	}
}

// The set starts again when full, and never holds a long text.
func TestCleanSetIsBounded(t *testing.T) {
	c := newCleanSet()
	long := strings.Repeat("x", cleanMax+1)
	c.add(long)
	if c.has(long) {
		t.Fatalf("a text longer than %d bytes is remembered", cleanMax)
	}
	piece := strings.Repeat("y", cleanMax)
	for i := 0; i < cleanBytes/cleanMax+2; i++ {
		c.add(piece[:cleanMax-8] + string(rune('a'+i%26)) + strings.Repeat("z", i%7) + string(rune('A'+i/26%26)) + string(rune('0'+i/676%10)))
	}
	if c.bytes > cleanBytes {
		t.Fatalf("the set holds %d bytes, over %d", c.bytes, cleanBytes)
	}
}
