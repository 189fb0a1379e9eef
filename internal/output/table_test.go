package output

import (
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

func render(t *testing.T, tb *Table, width int) []string {
	t.Helper()
	var b strings.Builder
	if err := tb.Render(&b, true, width); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

const longKey = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2" // 56 columns

func sessionTable() *Table {
	tb := NewTable("Key", "Kind", "Channel", "Agent", "Updated", "Model", "Tokens", "Label")
	tb.Flexible(5, 7).Droppable(6, 3, 5, 2, 7, 1, 4)
	tb.Row(longKey, "other", "whatsapp", "main", "2d ago", "mock-2", "3.3k/128k (2%)", "build-stats")
	tb.Row("main", "main", "signal", "main", "5m ago", "anthropic/claude-sonnet-4-6", "6.8k/128k (5%)", "")
	return tb
}

// TestFitNeverCutsKey: at any width the key column is whole; other
// columns shrink, then drop in the order given.
func TestFitNeverCutsKey(t *testing.T) {
	for _, width := range []int{20, 40, 60, 70, 80, 100, 120, 200} {
		lines := render(t, sessionTable(), width)
		if !strings.Contains(lines[1], longKey) {
			t.Errorf("width %d: key cut:\n%s", width, strings.Join(lines, "\n"))
		}
		if strings.Contains(lines[1], "agent:mai…") {
			t.Errorf("width %d: key truncated", width)
		}
		keyFits := width >= 56+2+5+2+7 // key, kind, updated
		for _, l := range lines {
			if w := runewidth.StringWidth(l); keyFits && w > width {
				t.Errorf("width %d: line of %d columns: %q", width, w, l)
			}
		}
	}
}

func TestFitDropsInOrder(t *testing.T) {
	hdr := func(width int) string { return strings.Join(strings.Fields(render(t, sessionTable(), width)[0]), " ") }
	cases := map[int]string{
		200: "KEY KIND CHANNEL AGENT UPDATED MODEL TOKENS LABEL",
		80:  "KEY KIND UPDATED",
		60:  "KEY", // nothing but the key fits; the line is as long as the key
	}
	for width, want := range cases {
		if got := hdr(width); got != want {
			t.Errorf("width %d: header %q, want %q", width, got, want)
		}
	}
	// Wide enough for everything but tokens and agent, with the model cut.
	got := hdr(106)
	if got != "KEY KIND CHANNEL UPDATED MODEL LABEL" {
		t.Errorf("width 106: header %q", got)
	}
	lines := render(t, sessionTable(), 106)
	if !strings.Contains(lines[2], "…") {
		t.Errorf("width 106: the model should shrink rather than drop:\n%s", strings.Join(lines, "\n"))
	}
}

// TestFitColorFollowsColumn: a coloured column keeps its colour function
// when a column before it is dropped.
func TestFitColorFollowsColumn(t *testing.T) {
	tb := NewTable("Run", "Kind", "Status").Droppable(1)
	tb.Color(2, func(s string) string { return "<" + s + ">" })
	tb.Row("0f8fd880-ca19-4a4a-9cf1-aa73ee1bf18c", "spawn", "ok")
	lines := render(t, tb, 42)
	if !strings.HasSuffix(lines[1], "<ok>") || strings.Contains(lines[0], "KIND") {
		t.Errorf("got:\n%s", strings.Join(lines, "\n"))
	}
}

func TestPipedKeepsEveryColumn(t *testing.T) {
	var b strings.Builder
	if err := sessionTable().Render(&b, false, 40); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(strings.Split(b.String(), "\n")[0], "\t"); got != 7 {
		t.Errorf("piped row has %d tabs, want 7: %q", got, b.String())
	}
}
