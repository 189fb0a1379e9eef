package output

import (
	"io"
	"strings"

	"github.com/clipperhouse/displaywidth"
	"github.com/mattn/go-runewidth"

	"github.com/openclaw/sessions/internal/lazyre"
)

// Table collects rows and prints them for a person (TTY: aligned columns
// with an upper-case header, fitted to the terminal width) or for a script
// (piped: tab-separated, no header).
type Table struct {
	headers []string
	rows    [][]string
	flex    map[int]bool // columns that may be truncated to fit
	drop    []int        // columns that may be left out to fit, first given first dropped
	minW    map[int]int  // narrowest widths of flexible columns, when not minFlexWidth
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

// MinWidth sets how narrow a flexible column may be cut (default 8 or its
// header's width): a column that would be useless any narrower is dropped
// (when droppable) or keeps this width.
func (t *Table) MinWidth(col, w int) *Table {
	if t.minW == nil {
		t.minW = map[int]int{}
	}
	t.minW[col] = w
	return t
}

// Droppable marks columns (by index) that are left out, in the order
// given, when the table does not fit the terminal even with its flexible
// columns cut to their minimum. A column neither flexible nor droppable
// (a session key, a run id: what people copy into the next command) is
// never cut: if the table cannot fit without cutting it, the line is
// longer than the terminal.
func (t *Table) Droppable(cols ...int) *Table {
	t.drop = append(t.drop, cols...)
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
	cols, rows := t.fit(width)
	if len(cols) == 0 {
		return nil // no columns: nothing to draw (tablewriter drew nothing either)
	}
	cells := make([][]string, 0, len(rows)+1)
	hdr := make([]string, len(cols))
	for i, c := range cols {
		hdr[i] = strings.ToUpper(t.headers[c])
	}
	cells = append(cells, hdr)
	for _, r := range rows {
		line := make([]string, len(cols))
		for i, col := range cols {
			if col < len(r) {
				line[i] = r[col]
			}
		}
		cells = append(cells, line)
	}
	// Columns are as wide as their widest cell, header included, measured
	// without colour; every cell is padded to its column's width and
	// followed by two spaces, a cell with escape sequences then by a reset
	// (so that no colour bleeds into the next cell), and a line ends at its
	// last character that is not a space. These are the bytes tablewriter
	// drew (FuzzTableMatchesTablewriter), without its width package, whose
	// initialiser every process paid for (docs/PERFORMANCE.md, "Start-up").
	for j, line := range cells {
		for i, c := range line {
			if fn := t.color[cols[i]]; fn != nil && j > 0 && c != "" {
				c = fn(c)
			}
			line[i] = strings.TrimSpace(c)
		}
	}
	widths := make([]int, len(cols))
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	var out, line strings.Builder
	for _, cs := range cells {
		line.Reset()
		for i, c := range cs {
			line.WriteString(c)
			line.WriteString(strings.Repeat(" ", widths[i]-cellWidth(c)+2))
			if strings.IndexByte(c, '\x1b') >= 0 {
				line.WriteString(ansiReset)
			}
		}
		out.WriteString(strings.TrimRight(line.String(), " "))
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// ansiReset ends the colour of a cell.
const ansiReset = "\x1b[0m"

// ansiSeq matches the escape sequences a cell's width leaves out: CSI
// (ESC [ … final byte) and OSC (ESC ] … ESC \\ or BEL).
var ansiSeq = lazyre.New("(\x1b\\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\\].*?(\x1b\\\\|\x07))")

// cellWidth is the number of terminal columns s takes, its escape
// sequences left out: the sum of its runes' widths (East Asian ambiguous
// runes as tableEastAsian decides).
func cellWidth(s string) int {
	if strings.IndexByte(s, '\x1b') >= 0 {
		s = ansiSeq.ReplaceAllString(s, "")
	}
	wide, narrowBoxes := tableEastAsian()
	opts := displaywidth.Options{EastAsianWidth: wide}
	n := 0
	for _, r := range s {
		if narrowBoxes && r >= 0x2500 && r <= 0x257f {
			n++
			continue
		}
		n += opts.Rune(r)
	}
	return n
}

// minFlexWidth is the narrowest a flexible column is cut to.
const minFlexWidth = 8

// fit makes the table fit width columns (2 spaces between columns): it
// leaves out the fewest droppable columns (in their order) needed for the
// rest to fit with the flexible columns at their minimum, then cuts the
// flexible columns (widest first) with "…" only as far as needed. It
// returns the columns kept, in order, and the rows (cells indexed by
// original column).
func (t *Table) fit(width int) ([]int, [][]string) {
	n := len(t.headers)
	widths := make([]int, n)
	for i, h := range t.headers {
		widths[i] = runewidth.StringWidth(h)
	}
	clean := strings.NewReplacer("\n", " ", "\r", " ", "\t", " ")
	for _, r := range t.rows {
		for i := 0; i < n && i < len(r); i++ {
			r[i] = clean.Replace(r[i])
			if w := runewidth.StringWidth(r[i]); w > widths[i] {
				widths[i] = w
			}
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if width <= 0 {
		return all, t.rows
	}
	minWidth := func(c int) int {
		if t.flex[c] {
			m := minFlexWidth
			if w, ok := t.minW[c]; ok {
				m = w
			}
			return min(widths[c], max(m, runewidth.StringWidth(t.headers[c])))
		}
		return widths[c]
	}
	total := func(cols []int, w func(int) int) int {
		s := 0
		for _, c := range cols {
			s += w(c) + 2
		}
		return s - 2
	}
	natural := func(c int) int { return widths[c] }
	cols := all
	if total(cols, natural) <= width {
		return cols, t.rows
	}
	dropped := map[int]bool{}
	for _, d := range t.drop {
		if total(cols, minWidth) <= width {
			break
		}
		if d < 0 || d >= n || dropped[d] {
			continue
		}
		dropped[d] = true
		kept := make([]int, 0, len(cols))
		for _, c := range cols {
			if c != d {
				kept = append(kept, c)
			}
		}
		cols = kept
	}
	for total(cols, natural) > width {
		widest := -1
		for _, c := range cols {
			if t.flex[c] && widths[c] > minWidth(c) && (widest < 0 || widths[c] > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break // only unflexible columns left to cut: never cut them
		}
		widths[widest]--
	}
	out := make([][]string, len(t.rows))
	for j, r := range t.rows {
		row := append([]string(nil), r...)
		for _, c := range cols {
			if t.flex[c] && c < len(row) && runewidth.StringWidth(row[c]) > widths[c] {
				row[c] = runewidth.Truncate(row[c], widths[c], "…")
			}
		}
		out[j] = row
	}
	return cols, out
}
