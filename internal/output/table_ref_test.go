package output

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// renderTablewriter is how Render drew a TTY table with tablewriter (no
// borders, left-aligned, two spaces after every cell, trailing spaces
// trimmed), kept here as the reference the padding of Render must match
// byte for byte: tablewriter is no longer linked into sessions, because its
// width package builds a 660 KB cache at init (docs/PERFORMANCE.md,
// "Start-up").
func renderTablewriter(t *Table, width int) (string, error) {
	cols, rows := t.fit(width)
	var b strings.Builder
	tbl := tablewriter.NewTable(&b,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{Separators: tw.SeparatorsNone, Lines: tw.LinesNone},
		})),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Right: "  ", Overwrite: true}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	hdr := make([]any, len(cols))
	for i, c := range cols {
		hdr[i] = strings.ToUpper(t.headers[c])
	}
	tbl.Header(hdr...)
	for _, r := range rows {
		cells := make([]any, len(cols))
		for i, col := range cols {
			c := ""
			if col < len(r) {
				c = r[col]
			}
			if fn := t.color[col]; fn != nil && c != "" {
				c = fn(c)
			}
			cells[i] = c
		}
		if err := tbl.Append(cells...); err != nil {
			return "", err
		}
	}
	if err := tbl.Render(); err != nil {
		return "", err
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		nl := strings.HasSuffix(line, "\n")
		out.WriteString(strings.TrimRight(line, " \n"))
		if nl {
			out.WriteByte('\n')
		}
	}
	return out.String(), nil
}

// tableCase builds a table from a compact description: headers, then rows,
// cells separated by '|', rows by '/'; columns 1 and 3 flexible, 2
// droppable, column 0 coloured.
func tableCase(headers string, body string) *Table {
	t := NewTable(strings.Split(headers, "|")...).Flexible(1, 3).Droppable(2)
	t.Color(0, func(s string) string { return "\x1b[1;36m" + s + "\x1b[0m" })
	if body != "" {
		for _, r := range strings.Split(body, "/") {
			t.Row(strings.Split(r, "|")...)
		}
	}
	return t
}

func compareWithTablewriter(t *testing.T, headers, body string, width int) {
	t.Helper()
	want, werr := renderTablewriter(tableCase(headers, body), width)
	var got bytes.Buffer
	gerr := tableCase(headers, body).Render(&got, true, width)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("headers %q rows %q width %d: error %v, tablewriter's %v", headers, body, width, gerr, werr)
	}
	if got.String() != want {
		t.Fatalf("headers %q rows %q width %d:\n got %q\nwant %q", headers, body, width, got.String(), want)
	}
}

// TestTableMatchesTablewriter: the cases a session list, a run list or a
// lock list meet — wide and narrow terminals, CJK and emoji, ANSI colour,
// spaces at either end of a cell, empty cells, short rows, no rows.
func TestTableMatchesTablewriter(t *testing.T) {
	cases := []struct{ headers, body string }{
		{"key|label|kind|updated", "agent:main:main|hello|direct|2m ago/agent:main:telegram:group:1|a much longer label here|group|1h ago"},
		{"key|label|kind|updated", ""},
		{"key|label", "k1|日本語のラベル/k2|🙂 emoji 👍🏽 flags 🇫🇷/k3|e\u0301 combining"},
		{"key|label|kind|updated", " lead| trail |  both  |x/|||/only"},
		{"key|label|kind|updated", "a|b/c"},
		{"key|label|kind|updated", "a\tb|c\nd|e\rf|g"},
		{"", "x|y"},
		{"k|l|m|n", "ﾊﾝｶｸ|ｶﾀｶﾅ|全角|Ａ"},
		{"key|label", "k|─│┼ box ╬|k2|ambiguous ±×÷ §¶ ①② Ω"},
	}
	for _, c := range cases {
		for _, w := range []int{0, 10, 20, 40, 80, 200} {
			compareWithTablewriter(t, c.headers, c.body, w)
		}
	}
	// no headers: no columns, whatever the rows
	noHeaders := func() *Table { t := NewTable(); t.Row("a", "b"); t.Row("c"); return t }
	want, err := renderTablewriter(noHeaders(), 80)
	var got bytes.Buffer
	if gerr := noHeaders().Render(&got, true, 80); gerr != nil || err != nil || got.String() != want {
		t.Errorf("no headers: got %q (%v), tablewriter's %q (%v)", got.String(), gerr, want, err)
	}
}

// FuzzTableMatchesTablewriter compares Render's TTY form with
// tablewriter's on random cells and terminal widths.
func FuzzTableMatchesTablewriter(f *testing.F) {
	f.Add("key|label|kind|updated", "agent:main:main|hello|direct|2m ago/k|日本語|x|", 40)
	f.Add("a|b", " x | y /🙂|é", 0)
	f.Fuzz(func(t *testing.T, headers, body string, width int) {
		if !utf8.ValidString(headers) || !utf8.ValidString(body) || len(headers)+len(body) > 400 ||
			strings.IndexFunc(headers, unicode.IsControl) >= 0 || strings.Contains(body, "\x1b") {
			// escape sequences are the colour's, never the data's (a cut one
			// is drawn differently); headers are the commands' own words
			t.Skip()
		}
		if width < 0 || width > 300 {
			width = 80
		}
		compareWithTablewriter(t, headers, body, width)
	})
}

// TestTableMatchesTablewriterLocales runs TestTableMatchesTablewriter again
// in the terminals and locales that change how wide an East Asian ambiguous
// rune is (each decided once per process, so each in a process of its own).
func TestTableMatchesTablewriterLocales(t *testing.T) {
	if os.Getenv("SESSIONS_TABLE_LOCALE_CHILD") != "" {
		t.Skip("the child runs the table test only")
	}
	for _, env := range [][]string{
		{"LANG=ja_JP.UTF-8", "TERM=xterm-256color"},
		{"LANG=ja_JP.UTF-8", "TERM=dumb"},
		{"LC_ALL=zh_CN.UTF-8", "TERM=linux"},
		{"LC_CTYPE=ko_KR", "TERM=vt100", "VTE_VERSION=7000"},
		{"LANG=en_SG.UTF-8", "TERM=dumb"},
		{"RUNEWIDTH_EASTASIAN=1", "TERM=xterm"},
		{"RUNEWIDTH_EASTASIAN=yes", "TERM=dumb"},
		{"RUNEWIDTH_EASTASIAN=0", "LANG=ja_JP", "TERM=dumb"},
		{"TERM_PROGRAM=vscode", "LANG=ja_JP", "TERM=dumb"},
		{"TERM_PROGRAM=iTerm.app", "LANG=ja_JP", "TERM=screen"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestTableMatchesTablewriter$", "-test.count", "1")
		cmd.Env = append(cleanEnv(), append(env, "SESSIONS_TABLE_LOCALE_CHILD=1")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s", env, err, out)
		}
	}
}

// cleanEnv is the environment without what decides the East Asian width.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_WSL", "RUNEWIDTH_EASTASIAN",
			"VTE_VERSION", "ALACRITTY_LOG", "WT_PROFILE_ID", "ConEmuANSI":
			continue
		}
		out = append(out, kv)
	}
	return out
}
