package skill_test

// The skill's CLI behaviour (printing, installing, its recipes run with the
// binary, and OpenClaw loading it) is tested in e2e/skill_test.go and
// e2e/skill_interop_test.go.

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/openclaw/sessions/internal/cmd/skill"
)

// The frontmatter is what OpenClaw reads: name, description, and
// metadata.openclaw with requires.bins and a go install spec for this
// module's command.
func TestFrontmatter(t *testing.T) {
	s := string(skill.Content)
	if !strings.HasPrefix(s, "---\n") {
		t.Fatal("SKILL.md does not start with a frontmatter block")
	}
	fm, _, ok := strings.Cut(s[4:], "\n---\n")
	if !ok {
		t.Fatal("the frontmatter block is not closed")
	}
	var doc struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Metadata    struct {
			OpenClaw struct {
				Requires struct {
					Bins []string `yaml:"bins"`
				} `yaml:"requires"`
				Install []map[string]any `yaml:"install"`
			} `yaml:"openclaw"`
		} `yaml:"metadata"`
	}
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil {
		t.Fatalf("frontmatter: %v", err)
	}
	oc := doc.Metadata.OpenClaw
	if doc.Name != skill.Name || doc.Description == "" || fmt.Sprint(oc.Requires.Bins) != "[sessions]" || len(oc.Install) != 1 {
		t.Fatalf("frontmatter: %+v", doc)
	}
	in := oc.Install[0]
	if in["kind"] != "go" || in["module"] != "github.com/openclaw/sessions/cmd/sessions@latest" || fmt.Sprint(in["bins"]) != "[sessions]" {
		t.Fatalf("install spec: %v", in)
	}
}
