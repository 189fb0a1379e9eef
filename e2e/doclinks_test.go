package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
)

// mdLink is an inline Markdown link or image: [text](target) or
// [text](target "title").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestDocLinks: every relative link of the README, of CONTRIBUTING.md and
// of the manual (docs/*.md) resolves — the file or directory exists in the repository,
// and a #fragment names a heading of the page it points to (as GitHub
// makes anchors of headings). The manual is split into pages by audience,
// so a section moved to another page must take its links along.
func TestDocLinks(t *testing.T) {
	root := testutil.Root(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, pages...)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := headingAnchors(t, path)
		anchors[path] = a
		return a
	}
	checked := 0
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, l := range docLinks(t, f) {
			target, frag, _ := strings.Cut(l.target, "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			dest := f
			if target != "" {
				dest = filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
				if r, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(r, "..") {
					t.Errorf("%s:%d: link %q leaves the repository", rel, l.line, l.target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: %v", rel, l.line, l.target, err)
					continue
				}
			}
			if frag != "" {
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %q: a fragment of a file that is no Markdown page", rel, l.line, l.target)
				} else if !anchorsOf(dest)[frag] {
					t.Errorf("%s:%d: link %q: no heading makes the anchor #%s", rel, l.line, l.target, frag)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d relative links found: the extraction is broken", checked)
	}
	// every page of the manual is reachable from the README
	readme := map[string]bool{}
	for _, l := range docLinks(t, files[0]) {
		target, _, _ := strings.Cut(l.target, "#")
		readme[filepath.Clean(filepath.FromSlash(target))] = true
	}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		if !readme[rel] {
			t.Errorf("README.md does not link %s", filepath.ToSlash(rel))
		}
	}
}

type docLink struct {
	line   int
	target string
}

// docLinks are the inline links of a Markdown file outside code blocks and
// code spans.
func docLinks(t *testing.T, path string) []docLink {
	var out []docLink
	eachProseLine(t, path, func(n int, l string) {
		for _, m := range mdLink.FindAllStringSubmatch(stripCodeSpans(l), -1) {
			out = append(out, docLink{n, m[1]})
		}
	})
	return out
}

// headingAnchors are the anchors GitHub makes of a page's headings:
// lower case, punctuation but '-' and '_' dropped, spaces made '-', and a
// repeated one suffixed -1, -2, ….
func headingAnchors(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	eachProseLine(t, path, func(_ int, l string) {
		if !strings.HasPrefix(l, "#") {
			return
		}
		text := strings.TrimLeft(l, "#")
		if !strings.HasPrefix(text, " ") || len(l)-len(text) > 6 {
			return
		}
		a := githubAnchor(text)
		if k := seen[a]; k > 0 {
			out[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	})
	return out
}

func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 0x7f && (r < 0x2000 || r > 0x2bff):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// eachProseLine calls fn for every line outside ``` code blocks.
func eachProseLine(t *testing.T, path string, fn func(n int, l string)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	fence := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if !fence {
			fn(n, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// stripCodeSpans blanks `code spans`, whose brackets are no links.
func stripCodeSpans(l string) string {
	var b strings.Builder
	in := false
	for _, r := range l {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}
