package topics

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

// Every environment variable the code reads or sets is documented in
// `sessions help environment`: the names are taken from the non-test
// sources outside the test helpers (enginetest, testutil): string literals
// with our prefixes, and every os.Getenv / f.Getenv / getenv argument.
func TestEnvironmentListsEveryVariable(t *testing.T) {
	prefixed := regexp.MustCompile(`"((?:OPENCLAW|CLAWDBOT|SESSIONS)_[A-Z0-9_]+)`)
	getenv := regexp.MustCompile(`(?i)getenv\("([A-Z0-9_]+)"\)`)
	found := map[string]string{}
	root := "../../.."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case p != root && strings.HasPrefix(d.Name(), "."): // .git, .bench (benchmark homes, module caches)
				return filepath.SkipDir
			case d.Name() == "testdata", d.Name() == "enginetest", d.Name() == "testutil", d.Name() == "scripts":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(string(src), "//go:build sessions_stuckcall") {
			return nil // a test seam, in no release build
		}
		for _, re := range []*regexp.Regexp{prefixed, getenv} {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				found[m[1]] = p
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 10 {
		t.Fatalf("found only %d variables in the sources: %v", len(found), found)
	}
	doc := Environment()
	for name, where := range found {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(doc) {
			t.Errorf("%s (used in %s) is not in `sessions help environment`", name, where)
		}
	}
	for _, name := range []string{"NO_COLOR", "CLICOLOR_FORCE", "COLUMNS", "TERM", "HOME", "OPENCLAW_STATE_DIR"} {
		if !strings.Contains(doc, name) {
			t.Errorf("%s missing", name)
		}
	}
}

// `sessions help exit-codes` lists exactly the codes apperr defines.
func TestExitCodesListEveryCode(t *testing.T) {
	for _, c := range []int{apperr.CodeOK, apperr.CodeError, apperr.CodeUsage, apperr.CodeForbidden,
		apperr.CodeNotFound, apperr.CodeTimeout, apperr.CodeState, apperr.CodeLock} {
		if !regexp.MustCompile(`(?m)^  ` + strconv.Itoa(c) + ` +\S`).MatchString(ExitCodes) {
			t.Errorf("exit code %d not documented", c)
		}
	}
}
