package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/ui/textinput"
)

// The global search: S in the sessions view. A query is searched as it
// is typed, with the operation `sessions search` uses (ops.Search: the
// search index, kept open and warm in this process between keys, with
// the scan as its fallback; the requester's visibility and masking as
// everywhere else).
const (
	// searchDebounce is how long the box waits after a key before it
	// searches: a word typed at speed is one search.
	searchDebounce = 100 * time.Millisecond
	// searchMinBytes is the shortest query searched: the index selects
	// by runs of 3 bytes, and a shorter query would scan every
	// transcript for a match on most messages. One CJK character is 3
	// bytes in UTF-8: it searches.
	searchMinBytes = 3
	// searchLimit is the most hits listed; totalCount says how many
	// there are.
	searchLimit = 200
)

// SearchOptions scope the search like the sessions view's listing.
type SearchOptions struct {
	Kinds     []string
	AllAgents bool
	// Row is the listing's row of a session (nil: not listed), for the
	// session view a hit opens.
	Row func(agentID, key string) *ops.Row
}

// SearchView is the search across every session, as you type.
type SearchView struct {
	env  Env
	opts SearchOptions

	input textinput.Model
	// after delivers a message after the debounce (tests deliver it at
	// once).
	after func(tea.Msg) tea.Cmd

	gen     int             // the generation of the box's text: a tick or answer of an older one is dropped
	ctx     context.Context // the running search's (canceled by a newer query)
	cancel  context.CancelFunc
	running bool
	// pending is the query to search once the running search is over
	// (pendingGen its generation): one search at a time — a canceled
	// search stops its catch-up of the index, not the rest of its work
	// — and the newest query waiting is the one searched next.
	pending    string
	pendingGen int
	refused    error // search cannot run here (through a gateway)

	query   string // what the hits answer
	short   bool   // the query is too short to search
	hits    []ops.SearchHit
	marks   [][3]string // each hit's snippet as before, match, after
	total   int
	partial bool
	err     error

	cursor, offset, page int
}

type searchTickMsg struct {
	gen   int
	query string
}

type searchResultMsg struct {
	gen     int
	query   string
	hits    []ops.SearchHit
	marks   [][3]string
	total   int
	partial bool
	err     error
}

var (
	keySearchAll  = key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "search every session as you type"))
	keyHitOpen    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the session at the hit"))
	keyHitBack    = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the sessions"))
	keyHitUp      = key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/ctrl+p", "previous hit"))
	keyHitDown    = key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓/ctrl+n", "next hit"))
	keyHitPgUp    = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up the hits"))
	keyHitPgDown  = key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down the hits"))
	searchKeyList = []key.Binding{keyHitOpen, keyHitBack, keyHitUp, keyHitDown, keyHitPgUp, keyHitPgDown}
)

// NewSearchView builds the search view. Through a gateway the invocation
// names (--gateway, --context) search cannot run, as `sessions search`
// cannot: the view says so.
func NewSearchView(env Env, opts SearchOptions) *SearchView {
	ti := textinput.New()
	ti.Prompt = "search every session: "
	ti.Placeholder = "text (lowercase ignores case)"
	ti.SetVirtualCursor(true)
	ti.Focus() // the box has the keys from the start (Init starts its cursor)
	v := &SearchView{env: env, opts: opts, input: ti, page: 10}
	v.after = func(m tea.Msg) tea.Cmd {
		return tea.Tick(searchDebounce, func(time.Time) tea.Msg { return m })
	}
	v.refused = env.Ops().CanRead(ops.ReadSearch)
	return v
}

// Init focuses the box.
func (v *SearchView) Init() tea.Cmd { return v.input.Focus() }

// Title names the view.
func (v *SearchView) Title() string { return "search" }

// Keys are the view's own bindings.
func (v *SearchView) Keys() []key.Binding { return searchKeyList }

// Capturing: the box has the keys (q, ? and letters are typed).
func (v *SearchView) Capturing() bool { return true }

// TypesEveryKey: ? is typed into the box, not the help (the status line
// does not offer it).
func (v *SearchView) TypesEveryKey() bool { return true }

// Close stops the running search.
func (v *SearchView) Close() {
	if v.cancel != nil {
		v.cancel()
	}
}

// Update handles the keys, the debounce and the answers.
func (v *SearchView) Update(msg tea.Msg) (View, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case searchTickMsg:
		if msg.gen != v.gen {
			return v, nil // a newer key came: its own tick searches
		}
		return v, v.start(msg.query)
	case searchResultMsg:
		v.running = false
		if msg.gen != v.gen {
			// the answer to an older query: dropped; the newest one
			// waiting is searched now
			if v.pendingGen == v.gen && v.pending != "" {
				q := v.pending
				v.pending = ""
				return v, v.launch(q)
			}
			return v, nil
		}
		v.query, v.hits, v.marks, v.total, v.partial, v.err = msg.query, msg.hits, msg.marks, msg.total, msg.partial, msg.err
		v.cursor, v.offset = 0, 0
		return v, nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	return v, cmd
}

func (v *SearchView) key(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, keyHitBack):
		v.Close()
		return pop
	case key.Matches(msg, keyHitOpen):
		return v.open()
	case key.Matches(msg, keyHitUp):
		v.move(-1)
		return nil
	case key.Matches(msg, keyHitDown):
		v.move(1)
		return nil
	case key.Matches(msg, keyHitPgUp):
		v.move(-max(1, v.page-1))
		return nil
	case key.Matches(msg, keyHitPgDown):
		v.move(max(1, v.page-1))
		return nil
	}
	if v.refused != nil {
		return nil
	}
	before := v.input.Value()
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	if v.input.Value() == before {
		return cmd
	}
	v.gen++
	return tea.Batch(cmd, v.after(searchTickMsg{gen: v.gen, query: v.input.Value()}))
}

func (v *SearchView) move(d int) {
	v.cursor = max(0, min(len(v.hits)-1, v.cursor+d))
}

// start searches q (the debounce is over), canceling the search of an
// older query: while that one runs q waits for it to end; a query
// shorter than searchMinBytes waits for more keys.
func (v *SearchView) start(q string) tea.Cmd {
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.pending = ""
	if len(strings.TrimSpace(q)) < searchMinBytes {
		v.query, v.short, v.hits, v.marks, v.total, v.partial, v.err = q, true, nil, nil, 0, false, nil
		return nil
	}
	v.short = false
	if v.running {
		v.pending, v.pendingGen = q, v.gen
		return nil
	}
	return v.launch(q)
}

// launch runs the search of q in the background.
func (v *SearchView) launch(q string) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	v.ctx, v.cancel, v.running = ctx, cancel, true
	env, gen := v.env, v.gen
	sq := ops.SearchQuery{Pattern: ops.SearchPattern{Pattern: q, IgnoreCase: !hasUpper(q)},
		AllAgents: v.opts.AllAgents, Kinds: v.opts.Kinds, Limit: searchLimit}
	return func() tea.Msg {
		res, err := env.Ops().Search(ctx, sq)
		out := searchResultMsg{gen: gen, query: q, err: err}
		if err != nil {
			return out
		}
		out.total, out.partial = res.TotalCount, res.Partial
		for i := range res.Len() {
			out.hits = append(out.hits, res.Hit(i))
			b, m, a := res.Highlight(i)
			out.marks = append(out.marks, [3]string{b, m, a})
		}
		return out
	}
}

// hasUpper: smart case, as in an editor: a query with an upper-case
// letter matches case, one without ignores it (`search -i`).
func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// open opens the session of the hit under the cursor, jumped to its
// message.
func (v *SearchView) open() tea.Cmd {
	if v.cursor < 0 || v.cursor >= len(v.hits) {
		return nil
	}
	h := v.hits[v.cursor]
	if h.Key == "" {
		return status("this hit's transcript has no session to open", true)
	}
	var row ops.Row
	if v.opts.Row != nil {
		if r := v.opts.Row(h.AgentID, h.Key); r != nil {
			row = *r
		}
	}
	if row.Key == "" {
		row = ops.Row{Key: h.Key, AgentID: h.AgentID, Kind: h.Kind, Label: h.Label, SessionID: h.SessionID}
	}
	j := Jump{ID: h.ID, Role: h.Role, Snippet: h.Snippet, Match: h.Match}
	if h.Timestamp != nil {
		j.At = *h.Timestamp
	}
	return push(NewSessionViewAt(v.env, row, j))
}

// Render draws the box, a count line and the hits.
func (v *SearchView) Render(width, height int) string {
	st := v.env.Styles
	lines := []string{v.input.View()}
	var note string
	noteErr := false
	switch {
	case v.refused != nil:
		note, noteErr = flat(v.refused.Error()), true
	case v.err != nil:
		note, noteErr = flat(v.err.Error()), true
	case v.short:
		note = fmt.Sprintf("type %d or more bytes to search (one CJK character is 3)", searchMinBytes)
	case v.query == "" && v.running:
		note = "searching…"
	case v.query == "":
		note = "every session's transcript, as you type: ↑/↓ choose a hit, enter opens it there, esc goes back"
	case v.total == 0:
		note = "no hit for " + strconv.Quote(v.query)
	default:
		note = plural(v.total, "hit")
		if len(v.hits) < v.total {
			note = fmt.Sprintf("%d of %s (the newest)", len(v.hits), note)
		}
		note += " for " + strconv.Quote(v.query)
		if v.partial {
			note += " · partial: the masked search's budget ran out (these are the hits found so far)"
		}
	}
	if v.running && v.query != "" {
		note += " · searching…"
	}
	if noteErr {
		lines = append(lines, st.StatusErr.Render(ansi.Truncate(" "+note, width, "…")))
	} else {
		lines = append(lines, st.Dim.Render(ansi.Truncate(" "+note, width, "…")))
	}
	rowsH := max(1, height-len(lines))
	v.page = rowsH
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+rowsH {
		v.offset = v.cursor - rowsH + 1
	}
	v.offset = max(0, min(v.offset, len(v.hits)-rowsH))
	for i := v.offset; i < len(v.hits) && i < v.offset+rowsH; i++ {
		lines = append(lines, v.hitLine(i, width))
	}
	return strings.Join(lines, "\n")
}

// hitLine is one hit: key · role · time · snippet, the match
// highlighted and kept in view.
func (v *SearchView) hitLine(i, width int) string {
	st := v.env.Styles
	h := &v.hits[i]
	parts := []string{h.Key}
	if v.opts.AllAgents {
		parts = append(parts, h.AgentID)
	}
	parts = append(parts, h.Role)
	if h.Timestamp != nil {
		ms := float64(*h.Timestamp)
		parts = append(parts, cells.AgoMs(&ms, v.env.Now()))
	}
	prefix := " " + flat(strings.Join(parts, " · ")) + " · "
	before, match, after := v.marks[i][0], v.marks[i][1], v.marks[i][2]
	// the match stays in view: the text before it gives way first
	if avail := width - ansi.StringWidth(prefix) - ansi.StringWidth(match); avail > 0 {
		if keep := avail / 3; ansi.StringWidth(before) > keep {
			before = "…" + ansi.TruncateLeft(before, ansi.StringWidth(before)-max(0, keep-1), "")
		}
	}
	if i == v.cursor {
		return st.Selected.Render(padRight(ansi.Truncate(prefix+before+match+after, width, "…"), width))
	}
	return ansi.Truncate(st.Dim.Render(prefix)+before+st.Match.Render(match)+after, width, "…")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
