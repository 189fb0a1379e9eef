package output

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table collects rows and prints them for a person (TTY: aligned columns
// with an upper-case header, fitted to the terminal width) or for a script
// (piped: tab-separated, no header).
type Table struct {
	headers []string
	rows    [][]string
	flex    map[int]bool // columns that may be truncated to fit
	color   map[int]func(string) string
}

// NewTable starts a table with the given headers.
func NewTable(headers ...string) *Table { return &Table{headers: headers, flex: map[int]bool{}} }

// Flexible marks columns (by index) that are truncated first when the table
// is wider than the terminal.
func (t *Table) Flexible(cols ...int) *Table {
	for _, c := range cols {
		t.flex[c] = true
	}
	return t
}

// Color sets how the cells of a column are coloured on a TTY (applied
// after fitting, so escape sequences never count as width). Piped output is
// never coloured; fn should itself do nothing when colour is off
// (iostreams.ColorScheme).
func (t *Table) Color(col int, fn func(string) string) *Table {
	if t.color == nil {
		t.color = map[int]func(string) string{}
	}
	t.color[col] = fn
	return t
}

// Row appends a row.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Render writes the table; tty selects the human form, width is the
// terminal width.
func (t *Table) Render(w io.Writer, tty bool, width int) error {
	if !tty {
		var b strings.Builder
		for _, r := range t.rows {
			for i, c := range r {
				if i > 0 {
					b.WriteByte('\t')
				}
				b.WriteString(TSVCell(c))
			}
			b.WriteByte('\n')
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	rows := t.fit(width)
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
	hdr := make([]any, len(t.headers))
	for i, h := range t.headers {
		hdr[i] = strings.ToUpper(h)
	}
	tbl.Header(hdr...)
	for _, r := range rows {
		cells := make([]any, len(r))
		for i, c := range r {
			if fn := t.color[i]; fn != nil && c != "" {
				c = fn(c)
			}
			cells[i] = c
		}
		if err := tbl.Append(cells...); err != nil {
			return err
		}
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	// tablewriter pads every cell; trim trailing spaces per line.
	var out strings.Builder
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		nl := strings.HasSuffix(line, "\n")
		out.WriteString(strings.TrimRight(line, " \n"))
		if nl {
			out.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// fit truncates flexible columns (widest first) with "…" so that the
// table fits width columns (2 spaces between columns).
func (t *Table) fit(width int) [][]string {
	n := len(t.headers)
	widths := make([]int, n)
	for i, h := range t.headers {
		widths[i] = runewidth.StringWidth(h)
	}
	for _, r := range t.rows {
		for i := 0; i < n && i < len(r); i++ {
			r[i] = strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(r[i])
			if w := runewidth.StringWidth(r[i]); w > widths[i] {
				widths[i] = w
			}
		}
	}
	total := func() int {
		s := 0
		for _, w := range widths {
			s += w + 2
		}
		return s - 2
	}
	if width <= 0 || total() <= width || len(t.flex) == 0 {
		return t.rows
	}
	for total() > width {
		widest := -1
		for c := range t.flex {
			if c < n && (widest < 0 || widths[c] > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 || widths[widest] <= 8 {
			break
		}
		widths[widest]--
	}
	out := make([][]string, len(t.rows))
	for j, r := range t.rows {
		row := append([]string(nil), r...)
		for c := range t.flex {
			if c < len(row) && runewidth.StringWidth(row[c]) > widths[c] {
				row[c] = runewidth.Truncate(row[c], widths[c], "…")
			}
		}
		out[j] = row
	}
	return out
}
