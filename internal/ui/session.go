package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/ui/textinput"
)

// pageSize is how many messages a transcript page holds: the newest page
// on open, each older page on scrolling up.
const pageSize = 50

// SessionView is one session: show's fields on top, its transcript below,
// newest at the bottom, following what OpenClaw appends.
type SessionView struct {
	env Env
	row ops.Row

	shown   *ops.ShowResult
	showErr error
	showing bool // a show read is running
	again   bool // a change came while it ran

	msgs     []tmsg
	seen     map[string]bool // message ids drawn (a follow overlap is not drawn twice)
	rawSeen  map[uint64]bool // the stored bytes of the messages drawn, hashed (SQLite-era messages have no id)
	opened   bool            // the newest page arrived
	histErr  error
	older    string // the cursor of the page before the oldest drawn
	hasOlder bool
	loading  bool // an older page is being read

	cancel   context.CancelFunc
	follow   chan tea.Msg
	live     bool // following the transcript
	autoTail bool // the view sticks to the newest line

	scroll int // lines between the bottom of the transcript and the bottom of the view
	opts   drawOpts

	lines  []tline // the transcript drawn at linesW
	linesW int
	dirty  bool

	searching bool
	search    textinput.Model
	query     string
	matches   []int // line indexes
	match     int   // the current one, -1: none
	pageH     int

	// jumpTo is the search hit the view was opened at (nil: none): after
	// the newest page, the page around its message is read (one
	// ops.OpenHistory with Around: the hit's id), put before what is
	// drawn, and its message scrolled into view and marked.
	jumpTo   *Jump
	hitLine  int  // the first line of the hit's message (-1: none)
	jumpShow bool // scroll to hitLine on the next draw
}

// Jump names a search hit's message (ops.SearchHit): its id, what
// history --around takes; its role, snippet and time are what the
// search showed.
type Jump struct {
	ID, Role, Snippet, Match string
	At                       int64 // ms
}

var (
	keyTools        = key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "expand/collapse tool calls and results"))
	keyThinking     = key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "show/hide thinking"))
	keyFollow       = key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow: stick to the newest message"))
	keySearch       = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search the transcript (enter, then n/N)"))
	keyMatchNext    = key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match (newer)"))
	keyMatchPrev    = key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match (older)"))
	keySessionLeave = key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "back to the sessions"))
	transKeys       = []key.Binding{keySessionLeave, keyTools, keyThinking, keyFollow, keySearch, keyMatchNext, keyMatchPrev}
)

// NewSessionView opens the session of a listing's row.
func NewSessionView(env Env, row ops.Row) *SessionView {
	ti := textinput.New()
	ti.Prompt = "search: "
	ti.SetVirtualCursor(true)
	return &SessionView{env: env, row: row, seen: map[string]bool{}, rawSeen: map[uint64]bool{}, autoTail: true, match: -1, search: ti, pageH: 10, hitLine: -1}
}

// NewSessionViewAt opens the session of row at a search hit's message.
func NewSessionViewAt(env Env, row ops.Row, j Jump) *SessionView {
	v := NewSessionView(env, row)
	v.jumpTo = &j
	v.autoTail = false
	return v
}

// opsFor is the operations layer for this session: over a fleet, its own
// context only (a transcript is read on one host).
func (v *SessionView) opsFor() *ops.Ops {
	return envFor(v.env, v.row.Context).Ops()
}

type shownMsg struct {
	res *ops.ShowResult
	err error
}

type pageMsg struct {
	res    *ops.HistoryResult
	older  bool
	around bool // the page around the jump's message
	err    error
	sess   *ops.Session // the newest page's session, which Follow goes on with
}

type followMsg struct {
	msgs   []json.RawMessage
	notice string
	err    error
	done   bool
}

// Init reads show's fields and the newest page, then follows.
// show's read comes after the page: both read the store, and show counts
// every message of the transcript — the newest page is drawn first.
func (v *SessionView) Init() tea.Cmd {
	v.showing = true
	return v.readNewest()
}

func (v *SessionView) readShow() tea.Cmd {
	o, ref := v.opsFor(), v.row.Key
	return func() tea.Msg {
		sh, err := o.Show(context.Background(), ops.ShowQuery{Ref: ref})
		if err != nil {
			return shownMsg{err: err}
		}
		if sh.Session == nil && sh.Fleet != nil && len(sh.Fleet.Sessions) > 0 {
			return shownMsg{res: sh.Fleet.Sessions[0]}
		}
		return shownMsg{res: sh.Session}
	}
}

func (v *SessionView) readNewest() tea.Cmd {
	o, ref := v.opsFor(), v.row.Key
	return func() tea.Msg {
		ctx := context.Background()
		sess, res, err := o.OpenHistory(ctx, ref, "", ops.HistoryQuery{Limit: pageSize, IncludeTools: true, Raw: true})
		if err != nil {
			return pageMsg{err: err}
		}
		return pageMsg{res: res, sess: sess}
	}
}

func (v *SessionView) readOlder() tea.Cmd { return v.readOlderN(pageSize) }

// readOlderN reads the n messages before the oldest drawn.
func (v *SessionView) readOlderN(n int) tea.Cmd {
	o, ref, before := v.opsFor(), v.row.Key, v.older
	return func() tea.Msg {
		ctx := context.Background()
		sess, res, err := o.OpenHistory(ctx, ref, "", ops.HistoryQuery{Limit: n, IncludeTools: true, Raw: true, Before: before})
		if err != nil {
			return pageMsg{older: true, err: err}
		}
		sess.Close()
		return pageMsg{res: res, older: true}
	}
}

// readAround reads the page around the jump's message: one call, the
// message named by the id its search hit gave.
func (v *SessionView) readAround() tea.Cmd {
	o, ref, id := v.opsFor(), v.row.Key, v.jumpTo.ID
	return func() tea.Msg {
		sess, res, err := o.OpenHistory(context.Background(), ref, "", ops.HistoryQuery{Limit: pageSize, IncludeTools: true, Raw: true, Around: id})
		if err != nil {
			return pageMsg{around: true, err: err}
		}
		sess.Close()
		return pageMsg{res: res, around: true}
	}
}

// startFollow runs ops.Follow on the newest page's session until the view
// is left.
func (v *SessionView) startFollow(o *ops.Ops, sess *ops.Session) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	ch := make(chan tea.Msg, 64)
	v.follow = ch
	v.live = true
	go func() {
		defer sess.Close()
		defer func() {
			if p := recover(); p != nil && ctx.Err() == nil {
				ch <- followMsg{err: fmt.Errorf("internal error: %v", p), done: true}
			}
		}()
		err := o.Follow(ctx, sess, ops.FollowQuery{IncludeTools: true, Raw: true, Poll: 250 * time.Millisecond,
			Notice: func(line string) {
				select {
				case ch <- followMsg{notice: line}:
				case <-ctx.Done():
				}
			}}, func(msgs []json.RawMessage) error {
			select {
			case ch <- followMsg{msgs: msgs}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if ctx.Err() == nil {
			ch <- followMsg{err: err, done: true}
		}
	}()
	return v.waitFollow()
}

func (v *SessionView) waitFollow() tea.Cmd {
	ch := v.follow
	return func() tea.Msg { return <-ch }
}

// Title is the session's key.
func (v *SessionView) Title() string {
	t := v.row.Key
	if v.row.Context != "" {
		t = v.row.Context + ":" + t
	}
	return t
}

// Keys are the view's own bindings.
func (v *SessionView) Keys() []key.Binding {
	return append(append([]key.Binding{}, transKeys...), actionBindings()...)
}

// Capturing: the search box has the keys.
func (v *SessionView) Capturing() bool { return v.searching }

// Close stops following the transcript.
func (v *SessionView) Close() {
	if v.cancel != nil {
		v.cancel()
	}
	v.live = false
}

// leave stops following and pops the view.
func (v *SessionView) leave() tea.Cmd {
	v.Close()
	return pop
}

// Update handles the pages, the follow, changes and keys.
func (v *SessionView) Update(msg tea.Msg) (View, tea.Cmd) {
	switch msg := msg.(type) {
	case shownMsg:
		v.showing = false
		if msg.err == nil {
			v.shown, v.showErr = msg.res, nil
		} else {
			v.showErr = msg.err
		}
		if v.again {
			v.again = false
			v.showing = true
			return v, v.readShow()
		}
		return v, nil
	case pageMsg:
		return v, v.page(msg)
	case followMsg:
		if msg.done {
			v.live = false
			if msg.err != nil {
				return v, status("following stopped: "+msg.err.Error(), true)
			}
			return v, nil
		}
		if msg.notice != "" {
			v.msgs = append(v.msgs, tmsg{notice: msg.notice})
			v.dirty = true
		}
		v.add(msg.msgs)
		return v, v.waitFollow()
	case ChangedMsg:
		ev := msg.Event
		if ev.Key == v.row.Key && ev.AgentID == v.row.AgentID && ev.Context == v.row.Context {
			switch ev.Kind {
			case "updated", "added":
				if ev.Session != nil {
					v.row = *ev.Session
				}
				if v.showing {
					v.again = true
					return v, nil
				}
				v.showing = true
				// a moment later: the feed has just read the store too
				read := v.readShow()
				return v, tea.Tick(300*time.Millisecond, func(time.Time) tea.Msg { return read() })
			case "removed":
				return v, status(v.row.Key+" was removed", true)
			}
		}
		return v, nil
	case tea.KeyPressMsg:
		if v.searching {
			return v, v.searchKey(msg)
		}
		return v, v.key(msg)
	}
	if v.searching {
		var cmd tea.Cmd
		v.search, cmd = v.search.Update(msg)
		return v, cmd
	}
	return v, nil
}

func (v *SessionView) page(msg pageMsg) tea.Cmd {
	if msg.older {
		v.loading = false
	}
	if msg.around {
		return v.aroundPage(msg)
	}
	if msg.err != nil {
		if !msg.older {
			v.histErr = msg.err
			v.opened = true
			return tea.Batch(v.readShow(), status("cannot read the transcript: "+msg.err.Error(), true))
		}
		return status("cannot read the transcript: "+msg.err.Error(), true)
	}
	res := msg.res
	var parsed []tmsg
	for _, raw := range res.Messages {
		if m, ok := v.fresh(raw); ok {
			parsed = append(parsed, m)
		}
	}
	v.older, v.hasOlder = res.NextCursor, res.HasMore
	v.dirty = true
	if msg.older {
		v.msgs = append(parsed, v.msgs...)
		return nil
	}
	v.opened = true
	v.msgs = append(v.msgs, parsed...)
	show := v.readShow() // v.showing was set by Init
	if v.jumpTo != nil {
		v.loading = true // no older page while the jump's is read
		show = tea.Batch(show, v.readAround())
	}
	if msg.sess != nil && !res.Orphan {
		return tea.Batch(show, v.startFollow(v.opsFor(), msg.sess))
	}
	if msg.sess != nil {
		msg.sess.Close()
	}
	return show
}

// aroundPage puts the page around the jump's message before the messages
// drawn: those it shares with them (it reaches the newest page) are drawn
// once; when it does not reach them, a line says that the messages between
// are not shown. The message asked for is marked and shown.
func (v *SessionView) aroundPage(msg pageMsg) tea.Cmd {
	v.loading = false
	j := v.jumpTo
	v.jumpTo = nil
	if msg.err != nil {
		v.autoTail = true
		return status("cannot open the hit's message: "+msg.err.Error(), true)
	}
	res := msg.res
	if res.AroundIndex == nil || *res.AroundIndex >= len(res.Messages) {
		v.autoTail = true
		return status("the hit's message is not in the transcript any more", true)
	}
	hit := rawSum(res.Messages[*res.AroundIndex])
	var add []tmsg
	shared := false
	for _, raw := range res.Messages {
		m, ok := v.fresh(raw)
		if !ok {
			shared = true // drawn already: what follows is too
			break
		}
		add = append(add, m)
	}
	if !shared && res.HasNewer && len(v.msgs) > 0 {
		add = append(add, tmsg{notice: "… the messages between the hit's page and the newest are not shown (sessions history --around " + j.ID + " pages through them) …"})
	}
	v.msgs = append(add, v.msgs...)
	v.older, v.hasOlder = res.NextCursor, res.HasMore
	for i := range v.msgs {
		if v.msgs[i].notice == "" && v.msgs[i].sum == hit {
			v.msgs[i].hit = true
			break
		}
	}
	v.jumpShow, v.dirty = true, true
	return nil
}

// rawSum is a stored message's bytes hashed: what fresh keeps of each.
func rawSum(raw json.RawMessage) uint64 {
	h := fnv.New64a()
	h.Write(raw)
	return h.Sum64()
}

// add appends followed messages not drawn yet; it returns how many.
func (v *SessionView) add(raws []json.RawMessage) (n int) {
	for _, raw := range raws {
		if m, ok := v.fresh(raw); ok {
			v.msgs = append(v.msgs, m)
			v.dirty = true
			n++
		}
	}
	return n
}

// fresh parses raw unless it was drawn already (by its id, or its stored
// bytes).
func (v *SessionView) fresh(raw json.RawMessage) (tmsg, bool) {
	m, ok := parseMessage(raw)
	if !ok {
		return m, false
	}
	sum := rawSum(raw)
	m.sum = sum
	if v.rawSeen[sum] || (m.id != "" && v.seen[m.id]) {
		return m, false
	}
	v.rawSeen[sum] = true
	if m.id != "" {
		v.seen[m.id] = true
	}
	return m, true
}

func (v *SessionView) key(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, keySessionLeave):
		if msg.String() == "esc" && v.query != "" {
			v.query, v.matches, v.match = "", nil, -1
			return nil
		}
		return v.leave()
	case key.Matches(msg, navUp):
		return v.scrollBy(1)
	case key.Matches(msg, navDown):
		return v.scrollBy(-1)
	case key.Matches(msg, navPgUp):
		return v.scrollBy(max(1, v.pageH-1))
	case key.Matches(msg, navPgDn):
		return v.scrollBy(-max(1, v.pageH-1))
	case key.Matches(msg, navHome):
		return v.scrollBy(len(v.lines) + v.pageH)
	case key.Matches(msg, navEnd):
		v.scroll, v.autoTail = 0, true
	case key.Matches(msg, keyTools):
		v.opts.tools = !v.opts.tools
		v.dirty = true
	case key.Matches(msg, keyThinking):
		v.opts.thinking = !v.opts.thinking
		v.dirty = true
		if v.opts.thinking {
			return status("thinking shown", false)
		}
		return status("thinking hidden", false)
	case key.Matches(msg, keyFollow):
		v.autoTail = !v.autoTail
		if v.autoTail {
			v.scroll = 0
		}
	case key.Matches(msg, keySearch):
		v.searching = true
		v.search.SetValue(v.query)
		return v.search.Focus()
	case key.Matches(msg, keyMatchNext):
		v.jump(1)
	case key.Matches(msg, keyMatchPrev):
		v.jump(-1)
	default:
		return runAction(v.env, msg, &v.row)
	}
	return nil
}

// scrollBy moves the view up (d > 0) or down; at the top it reads the
// page before.
func (v *SessionView) scrollBy(d int) tea.Cmd {
	maxScroll := max(0, len(v.lines)-v.pageH)
	v.scroll = max(0, v.scroll+d)
	if v.scroll > maxScroll {
		v.scroll = maxScroll
		if d > 0 && v.hasOlder && !v.loading {
			v.loading = true
			v.autoTail = false
			return tea.Batch(v.readOlder(), status("reading older messages…", false))
		}
	}
	v.autoTail = v.scroll == 0
	return nil
}

func (v *SessionView) searchKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		v.searching = false
		v.search.Blur()
		v.query = strings.TrimSpace(v.search.Value())
		v.findMatches()
		if v.query != "" && len(v.matches) == 0 {
			return status("no match for "+strconv.Quote(v.query), true)
		}
		if len(v.matches) > 0 {
			// the newest match at or above the bottom of the view
			bottom := len(v.lines) - 1 - v.scroll
			v.match = 0
			for i, l := range v.matches {
				if l <= bottom {
					v.match = i
				}
			}
			v.show(v.matches[v.match])
			return status(fmt.Sprintf("match %d of %d", v.match+1, len(v.matches)), false)
		}
		return nil
	case "esc":
		v.searching = false
		v.search.Blur()
		return nil
	}
	var cmd tea.Cmd
	v.search, cmd = v.search.Update(msg)
	return cmd
}

func (v *SessionView) findMatches() {
	v.matches, v.match = nil, -1
	if v.query == "" {
		return
	}
	q := strings.ToLower(v.query)
	for i, l := range v.lines {
		if strings.Contains(strings.ToLower(l.text+l.extra), q) {
			v.matches = append(v.matches, i)
		}
	}
}

func (v *SessionView) jump(d int) {
	if len(v.matches) == 0 {
		return
	}
	v.match = (v.match + d + len(v.matches)) % len(v.matches)
	v.show(v.matches[v.match])
}

// show scrolls so that line i is in the middle of the view.
func (v *SessionView) show(i int) {
	top := max(0, i-v.pageH/2)
	v.scroll = max(0, min(len(v.lines)-v.pageH, len(v.lines)-top-v.pageH))
	v.autoTail = v.scroll == 0
}

// relayout draws the transcript's lines again at width w when something
// changed; the view keeps its distance from the bottom unless it follows.
func (v *SessionView) relayout(w int) {
	if !v.dirty && w == v.linesW {
		return
	}
	before, oldW := len(v.lines), v.linesW
	lines := make([]tline, 0, len(v.lines)+8)
	v.hitLine = -1
	for i := range v.msgs {
		if i > 0 {
			lines = append(lines, tline{kind: lineBlank})
		}
		from := len(lines)
		lines = drawMessage(lines, &v.msgs[i], w, v.opts)
		if v.msgs[i].hit {
			v.hitLine = from
			for k := from; k < len(lines); k++ {
				lines[k].hit = true
			}
		}
	}
	grown := len(lines) - before
	v.lines, v.linesW, v.dirty = lines, w, false
	if !v.autoTail && v.scroll > 0 && grown > 0 && w == oldW {
		// messages were appended below: stay on what is being read
		v.scroll += grown
	}
	if v.autoTail {
		v.scroll = 0
	}
	if v.query != "" {
		cur := -1
		if v.match >= 0 && v.match < len(v.matches) {
			cur = v.matches[v.match]
		}
		v.findMatches()
		for i, l := range v.matches {
			if l <= cur {
				v.match = i
			}
		}
	}
}

// Render draws show's fields, a rule, the transcript and the search line.
func (v *SessionView) Render(width, height int) string {
	st := v.env.Styles
	head := v.fields(width)
	if height < 12 && len(head) > 2 {
		head = head[:2]
	}
	rule := v.rule(width)
	footer := ""
	if v.searching {
		footer = v.search.View()
	} else if v.query != "" {
		footer = st.Dim.Render(fmt.Sprintf("search %q: %d matches (n/N, esc clears)", v.query, len(v.matches)))
	}
	bodyH := height - len(head) - 1
	if footer != "" {
		bodyH--
	}
	bodyH = max(1, bodyH)
	v.pageH = bodyH
	var body []string
	switch {
	case !v.opened:
		body = []string{st.Dim.Render(" reading the transcript…")}
	case v.histErr != nil:
		body = []string{st.StatusErr.Render(" " + flat(v.histErr.Error()))}
	default:
		v.relayout(width)
		if v.jumpShow && v.hitLine >= 0 {
			v.jumpShow = false
			v.show(v.hitLine)
		}
		if len(v.lines) == 0 {
			body = []string{st.Dim.Render(" no messages yet")}
			break
		}
		v.scroll = max(0, min(v.scroll, len(v.lines)-bodyH))
		end := len(v.lines) - v.scroll
		start := max(0, end-bodyH)
		cur := -1
		if v.match >= 0 && v.match < len(v.matches) {
			cur = v.matches[v.match]
		}
		for i := start; i < end; i++ {
			body = append(body, v.drawLine(v.lines[i], width, i == cur))
		}
		if start == 0 && len(body) < bodyH {
			// short transcripts sit at the bottom, newest last
			pad := make([]string, bodyH-len(body))
			body = append(pad, body...)
			if v.hasOlder {
				body[0] = st.Dim.Render(" ↑ older messages: scroll up")
			}
		}
	}
	out := strings.Join(head, "\n") + "\n" + rule + "\n" + fit(strings.Join(body, "\n"), width, bodyH)
	if footer != "" {
		out += "\n" + footer
	}
	return out
}

func (v *SessionView) rule(width int) string {
	st := v.env.Styles
	var flags []string
	if v.live {
		if v.autoTail {
			flags = append(flags, "following")
		} else {
			flags = append(flags, "paused (f follows)")
		}
	}
	if v.opts.tools {
		flags = append(flags, "tools expanded")
	}
	if v.opts.thinking {
		flags = append(flags, "thinking shown")
	}
	if v.loading {
		flags = append(flags, "reading older…")
	}
	label := fmt.Sprintf(" transcript · %d messages", countMessages(v.msgs))
	if v.hasOlder {
		label += " (older above)"
	}
	if len(flags) > 0 {
		label += " · " + strings.Join(flags, " · ")
	}
	label += " "
	n := width - ansi.StringWidth(label) - 2
	s := "──" + label + strings.Repeat("─", max(0, n))
	return st.Dim.Render(ansi.Truncate(s, width, ""))
}

func countMessages(ms []tmsg) int {
	n := 0
	for i := range ms {
		if ms[i].notice == "" {
			n++
		}
	}
	return n
}

func (v *SessionView) drawLine(l tline, width int, current bool) string {
	st := v.env.Styles
	text := " " + l.text
	if l.cut || ansi.StringWidth(text+l.extra) > width {
		text = ansi.Truncate(text, width, "…")
	}
	var s string
	switch l.kind {
	case lineHead:
		role := st.Assistant
		if l.role == "user" {
			role = st.User
		}
		s = role.Render(text)
		if l.extra != "" {
			s += st.Dim.Render(ansi.Truncate(l.extra, max(0, width-ansi.StringWidth(text)), ""))
		}
	case lineTool, lineToolBody:
		s = st.Tool.Render(text)
	case lineThinking:
		s = st.Thinking.Render(text)
	case lineError:
		s = st.Bad.Render(text)
	case lineNotice:
		s = st.Warn.Render(text)
	default:
		s = text
	}
	if v.query != "" && strings.Contains(strings.ToLower(l.text+l.extra), strings.ToLower(v.query)) {
		if current {
			s = st.Match.Render(padRight(ansi.Strip(ansi.Truncate(text+l.extra, width, "…")), width))
		} else {
			s = st.Key.Render("▌") + ansi.Truncate(s, width-1, "")
		}
	}
	if l.hit {
		// the message the search hit opened the view at: marked in the
		// margin
		s = st.Match.Render("▶") + ansi.TruncateLeft(s, 1, "")
	}
	return s
}

// fields are show's fields, flowed into lines of width.
func (v *SessionView) fields(width int) []string {
	st := v.env.Styles
	r := &v.row
	type kv struct{ k, v string }
	var kvs []kv
	add := func(k, val string) {
		if val != "" {
			kvs = append(kvs, kv{k, val})
		}
	}
	add("agent", r.AgentID)
	add("kind", r.Kind)
	add("channel", r.Channel)
	add("label", r.Label)
	add("name", r.DisplayName)
	add("updated", cells.AgoMs(r.UpdatedAt, v.env.Now()))
	add("session", r.SessionID)
	if s := v.shown; s != nil {
		add("era", string(s.Era))
		if s.Model != nil {
			m := s.Model.Model
			if s.Model.Provider != "" && m != "" {
				m = s.Model.Provider + "/" + m
			}
			if s.Model.ModelOverride != "" {
				m += " (override " + s.Model.ModelOverride + ")"
			}
			add("model", m)
		}
		if s.Tokens != nil {
			add("tokens", cells.Tokens(s.Tokens.Total, s.Tokens.Context))
		}
		add("messages", strconv.Itoa(s.Transcript.Messages))
		if s.Transcript.Bytes != nil {
			add("bytes", strconv.FormatInt(*s.Transcript.Bytes, 10))
		}
		if s.Busy {
			add("busy", "yes, pid "+strconv.Itoa(lockPID(s.Lock)))
		}
		add("spawned by", s.Lineage.SpawnedBy)
		if n := len(s.Lineage.Children); n > 0 {
			add("children", strconv.Itoa(n))
		}
		if n := len(s.Runs); n > 0 {
			add("runs", strconv.Itoa(n))
		}
	} else {
		add("model", r.Model)
		add("tokens", cells.Tokens(r.TotalTokens, r.ContextTokens))
	}
	add("send policy", r.SendPolicy)
	add("last to", r.LastTo)
	var lines []string
	cur, curW := " ", 1
	for _, f := range kvs {
		plain := f.k + " " + f.v
		w := ansi.StringWidth(plain)
		if curW > 1 && curW+3+w > width {
			lines = append(lines, cur)
			cur, curW = " ", 1
		}
		if curW > 1 {
			cur += st.Dim.Render(" · ")
			curW += 3
		}
		if curW+w > width {
			plain = ansi.Truncate(plain, width-curW, "…")
			f.v = strings.TrimPrefix(plain, f.k+" ")
			w = ansi.StringWidth(plain)
		}
		cur += st.Label.Render(f.k) + " " + f.v
		curW += w
	}
	if curW > 1 {
		lines = append(lines, cur)
	}
	if v.showErr != nil {
		lines = append(lines, st.StatusErr.Render(ansi.Truncate(" show: "+flat(v.showErr.Error()), width, "…")))
	}
	return lines
}

func lockPID(l *ops.ShowLock) int {
	if l == nil {
		return 0
	}
	return l.PID
}
