package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// entry builds a pi entry line; parent "" means "parentId":null, "-" means
// no parentId at all.
func treeLine(typ, id, parent, extra string) string {
	p := fmt.Sprintf(`,"parentId":%q`, parent)
	switch parent {
	case "":
		p = `,"parentId":null`
	case "-":
		p = ""
	}
	return fmt.Sprintf(`{"type":%q,"id":%q%s,"timestamp":"2026-01-30T12:00:00.000Z"%s}`, typ, id, p, extra)
}

func treeMsg(id, parent, role, text string) string {
	return treeLine("message", id, parent, fmt.Sprintf(`,"message":{"role":%q,"content":[{"type":"text","text":%q}]}`, role, text))
}

func TestLeafPath(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"linear", []string{
			testHeader,
			treeLine("model_change", "m1", "", `,"provider":"p","modelId":"x"`),
			treeMsg("u1", "m1", "user", "q1"),
			treeMsg("a1", "u1", "assistant", "r1"),
			treeMsg("u2", "a1", "user", "q2"),
		}, "q1,r1,q2"},
		{"abandoned branch", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeMsg("a1", "u1", "assistant", "r1"),
			treeMsg("u2", "a1", "user", "old"),
			treeMsg("a2", "u2", "assistant", "old reply"),
			treeMsg("u3", "a1", "user", "new"), // branch from a1
			treeMsg("a3", "u3", "assistant", "new reply"),
		}, "q1,r1,new,new reply"},
		{"missing parentId cuts", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeMsg("a1", "u1", "assistant", "r1"),
			treeMsg("inj", "-", "assistant", "injected"),
			treeMsg("u2", "inj", "user", "q2"),
		}, "injected,q2"},
		{"unknown parent cuts", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeMsg("u2", "zzz", "user", "q2"),
		}, "q2"},
		{"cycle terminates", []string{
			testHeader,
			treeMsg("a", "c", "user", "A"),
			treeMsg("b", "a", "assistant", "B"),
			treeMsg("c", "b", "user", "C"),
		}, "A,B,C"},
		{"self parent", []string{testHeader, treeMsg("a", "a", "user", "A")}, "A"},
		{"leaf is last entry with an id", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeMsg("a1", "u1", "assistant", "r1"),
			`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"no id"}]}}`,
			`{"broken`,
			"",
		}, "q1,r1"},
		{"custom entries on the path are not messages", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeLine("custom_message", "cm", "u1", `,"customType":"x","content":"hi","display":true`),
			treeLine("custom", "cu", "cm", `,"customType":"y","data":{}`),
			treeMsg("a1", "cu", "assistant", "r1"),
		}, "q1,r1"},
		{"compaction", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeMsg("a1", "u1", "assistant", "r1"),
			treeMsg("u2", "a1", "user", "q2"),
			treeMsg("a2", "u2", "assistant", "r2"),
			treeLine("compaction", "c1", "a2", `,"summary":"S1","firstKeptEntryId":"u2","tokensBefore":100`),
			treeMsg("u3", "c1", "user", "q3"),
		}, "<S1>,q2,r2,q3"},
		{"last compaction wins", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeLine("compaction", "c1", "u1", `,"summary":"S1","firstKeptEntryId":"u1","tokensBefore":1`),
			treeMsg("u2", "c1", "user", "q2"),
			treeMsg("a2", "u2", "assistant", "r2"),
			treeLine("compaction", "c2", "a2", `,"summary":"S2","firstKeptEntryId":"a2","tokensBefore":1`),
			treeMsg("u3", "c2", "user", "q3"),
		}, "<S2>,r2,q3"},
		{"compaction with unknown firstKept", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeLine("compaction", "c1", "u1", `,"summary":"S","firstKeptEntryId":"nope","tokensBefore":1`),
			treeMsg("u2", "c1", "user", "q2"),
		}, "<S>,q2"},
		{"compaction on an abandoned branch is ignored", []string{
			testHeader,
			treeMsg("u1", "", "user", "q1"),
			treeLine("compaction", "c1", "u1", `,"summary":"S","firstKeptEntryId":"u1","tokensBefore":1`),
			treeMsg("u2", "u1", "user", "q2"),
		}, "q1,q2"},
		{"header only", []string{testHeader}, ""},
		{"empty", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTranscript(t, []byte(strings.Join(c.lines, "\n")+"\n"))
			var warned []string
			got, err := LeafPath(p, func(m string) { warned = append(warned, m) })
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("nil slice")
			}
			var parts []string
			for _, m := range got {
				if !json.Valid(m) {
					t.Fatalf("invalid %s", m)
				}
				txt := gjson.GetBytes(m, "content.0.text").Str
				if s, ok := strings.CutPrefix(txt, compactionSummaryPrefix); ok {
					if gjson.GetBytes(m, "role").Str != "user" || gjson.GetBytes(m, "timestamp").Int() != 1769774400000 {
						t.Fatalf("summary message %s", m)
					}
					txt = "<" + strings.TrimSuffix(s, compactionSummarySuffix) + ">"
				}
				parts = append(parts, txt)
			}
			if g := strings.Join(parts, ","); g != c.want {
				t.Fatalf("got %q want %q", g, c.want)
			}
			if c.name == "leaf is last entry with an id" && len(warned) != 1 {
				t.Fatalf("warnings %q", warned)
			}
		})
	}
}

func TestLeafPathFixtures(t *testing.T) {
	files, _ := filepath.Glob(fixtureGlob)
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			got, err := LeafPath(p, func(m string) { t.Errorf("warning %q", m) })
			if err != nil {
				t.Fatal(err)
			}
			all, err := ReadMessages(p, Options{IncludeTools: true})
			if err != nil {
				t.Fatal(err)
			}
			// The fixtures are linear: the leaf path is every message.
			if !sameMessages(got, all.Messages) {
				t.Fatalf("leaf path:\n%s\nall:\n%s", describe(got), describe(all.Messages))
			}
		})
	}
}

func TestLastEntryID(t *testing.T) {
	cases := []struct {
		name      string
		content   string
		id        string
		assistant bool
	}{
		{"empty", "", "", false},
		{"header only", testHeader + "\n", "", false},
		{"user only", testHeader + "\n" + treeMsg("u1", "", "user", "q") + "\n", "u1", false},
		{"assistant earlier", testHeader + "\n" + treeMsg("a1", "", "assistant", "r") + "\n" + treeMsg("u1", "a1", "user", "q") + "\n" + treeLine("custom", "c9", "u1", "") + "\n", "c9", true},
		{"skips corrupt, torn and id-less lines", testHeader + "\n" + treeMsg("a1", "", "assistant", "r") + "\n{\"bad\n\n" + `{"type":"message","message":{"role":"user"}}` + "\n" + `{"type":"message","id":"zz","message":{"ro`, "a1", true},
		{"role without message type", testHeader + "\n" + `{"type":"custom","id":"x","message":{"role":"assistant"}}` + "\n", "x", false},
		{"crlf", strings.ReplaceAll(testHeader+"\n"+treeMsg("a1", "", "assistant", "r")+"\n", "\n", "\r\n"), "a1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, has, err := LastEntryID(writeTranscript(t, []byte(c.content)))
			if err != nil || id != c.id || has != c.assistant {
				t.Fatalf("got %q %v %v, want %q %v", id, has, err, c.id, c.assistant)
			}
		})
	}
	files, _ := filepath.Glob(fixtureGlob)
	for _, p := range files {
		content, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(content)), "\n")
		want := gjson.Get(lines[len(lines)-1], "id").Str
		id, has, err := LastEntryID(p)
		if err != nil || id != want || !has {
			t.Fatalf("%s: %q %v %v, want %q", p, id, has, err, want)
		}
	}
}

func TestLastEntryIDHugeLine(t *testing.T) {
	setTunables(t, 64, 256, 64, 64)
	content := testHeader + "\n" + treeMsg("a1", "", "assistant", "r") + "\n" + treeMsg("t1", "a1", "toolResult", strings.Repeat("x", 5000)) + "\n"
	id, has, err := LastEntryID(writeTranscript(t, []byte(content)))
	if err != nil || id != "t1" || !has {
		t.Fatalf("%q %v %v", id, has, err)
	}
}
