package lazyre

import (
	"sync"
	"testing"
)

// A lazy expression is not compiled until used, then matches as the
// compiled one; a rewrite runs on first use too.
func TestCompiledOnFirstUse(t *testing.T) {
	r := &Regexp{src: `^(\d+)(s|m)$`} // as New outside a test binary
	if r.rx != nil {
		t.Fatal("compiled before use")
	}
	if !r.MatchString("12s") || r.MatchString("12h") {
		t.Error("MatchString disagrees with the pattern")
	}
	if r.rx == nil {
		t.Fatal("not compiled after use")
	}
	if got := r.FindStringSubmatch("7m"); len(got) != 3 || got[1] != "7" || got[2] != "m" {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	calls := 0
	f := &Regexp{src: `a\sb`, rewrite: func(s string) string { calls++; return s + "$" }}
	if calls != 0 {
		t.Fatal("rewrite ran before use")
	}
	if !f.MatchString("xa b") || f.MatchString("a bx") || calls != 1 {
		t.Errorf("rewritten pattern: calls %d", calls)
	}
	f.MatchString("a b")
	if calls != 1 {
		t.Errorf("rewrite ran %d times, want once", calls)
	}
}

// Concurrent first uses compile once and all see the compiled expression.
func TestConcurrentFirstUse(t *testing.T) {
	r := New(`x+`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r.FindString("axxb") != "xx" {
				t.Error("FindString")
			}
		}()
	}
	wg.Wait()
}

// A bad source panics at first use, as regexp.MustCompile would at start.
func TestBadSourcePanicsAtUse(t *testing.T) {
	r := &Regexp{src: `(`}
	defer func() {
		if recover() == nil {
			t.Error("no panic for a bad source")
		}
	}()
	r.MatchString("x")
}

// In a test binary New compiles at once: a bad source fails the tests of
// the package that declares it, whether they use it or not.
func TestNewCompilesInTests(t *testing.T) {
	if r := New(`a`); r.rx == nil {
		t.Error("New did not compile in a test binary")
	}
	defer func() {
		if recover() == nil {
			t.Error("New of a bad source did not panic in a test binary")
		}
	}()
	NewFunc(`(`, func(s string) string { return s })
}
