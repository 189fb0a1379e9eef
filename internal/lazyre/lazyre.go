// Package lazyre is a regular expression compiled on first use. A package
// variable `var x = regexp.MustCompile(…)` is compiled by the package's
// initialiser, in every process, whether the command run needs it or not
// (docs/PERFORMANCE.md, "Start-up"); `var x = lazyre.New(…)` costs nothing
// until x is used, then compiles once (safe for concurrent use) and
// behaves as the *regexp.Regexp it wraps. A source that does not compile
// panics at first use, as MustCompile would at start; in a test binary
// (its name ends in ".test") New compiles at once, so that every
// package's tests fail on a source that does not compile, used or not.
package lazyre

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of *regexp.Regexp that the module uses.
type Regexp struct {
	src     string
	rewrite func(string) string
	once    sync.Once
	rx      *regexp.Regexp
}

// New is the regular expression src, compiled on first use.
func New(src string) *Regexp {
	r := &Regexp{src: src}
	if inTest() {
		r.Regexp()
	}
	return r
}

// NewFunc is the regular expression rewrite(src), both run on first use
// (for sources built at run time, e.g. rewritten into another dialect).
func NewFunc(src string, rewrite func(string) string) *Regexp {
	r := &Regexp{src: src, rewrite: rewrite}
	if inTest() {
		r.Regexp()
	}
	return r
}

// inTest: this process is a test binary (go test's pkg.test).
func inTest() bool {
	return len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")
}

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() {
		src := r.src
		if r.rewrite != nil {
			src = r.rewrite(src)
		}
		r.rx = regexp.MustCompile(src)
	})
	return r.rx
}

// String is the source text (as given, before any rewrite).
func (r *Regexp) String() string { return r.src }

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }
func (r *Regexp) Find(b []byte) []byte      { return r.Regexp().Find(b) }
func (r *Regexp) FindString(s string) string {
	return r.Regexp().FindString(s)
}
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.Regexp().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Regexp().FindAllSubmatch(b, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }
func (r *Regexp) NumSubexp() int                 { return r.Regexp().NumSubexp() }
func (r *Regexp) SubexpNames() []string          { return r.Regexp().SubexpNames() }
