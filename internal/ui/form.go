package ui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/openclaw/sessions/internal/ui/textinput"
)

// form is the machinery the action dialogs share: text fields or a choice
// to fill, a question to confirm before anything is written ("y" runs it,
// Esc goes back), the operation run off the UI loop through env.Ops(), and
// its outcome on the status line. On success the dialog pops itself unless
// its done hook says otherwise (the send dialog stays to show the reply);
// an error goes to the status line and the dialog stays.
type form struct {
	env   Env
	title string
	about []string // lines above the fields: what is acted on

	fields []*field
	choice *choice
	focus  int

	stage stage
	// ask checks what was entered and returns the question to confirm; an
	// error is shown and nothing runs.
	ask func() (string, error)
	// act runs the operation (off the UI loop); its result goes to done.
	act func(ctx context.Context) (any, error)
	// done is told the result of act; it returns what to do next. nil:
	// pop and say ok.
	done func(res any) tea.Cmd
	// doing names the operation while it runs ("deleting…").
	doing string
	ok    string // the status after success (done == nil)

	question string
	errText  string
	out      []string // what the operations answered, shown below the fields
	gen      int      // the generation of the running operation: late answers of an abandoned one are dropped
	cancel   context.CancelFunc
	// onChange is told the feed's events (the send dialog follows its run).
	onChange func(ev ChangedMsg)
	// onEsc, when set, is what Esc does while an operation runs (the send
	// dialog stops waiting for a reply: the run goes on).
	onEsc func() tea.Cmd
	// onErr, when set, is told an operation's error first.
	onErr func(err error)
}

type stage int

const (
	editing stage = iota
	confirming
	running
)

// field is one labelled text input.
type field struct {
	label string
	input textinput.Model
}

// choice is a pick among a few values (the send policy).
type choice struct {
	label   string
	values  []string
	help    []string
	current int
}

// formDone is the answer of a form's operation.
type formDone struct {
	f   *form
	gen int
	res any
	err error
}

var (
	keyConfirm = key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "confirm"))
	keyCancel  = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel / leave"))
	keySubmit  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "submit"))
	keyNext    = key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field"))
	keyPrev    = key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field"))
	keyPickUp  = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous choice"))
	keyPickDn  = key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next choice"))
)

func newField(env Env, label, value, placeholder string, limit int) *field {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.CharLimit = limit
	st := textinput.Styles{Cursor: textinput.CursorStyle{Shape: tea.CursorBlock}}
	if lookOf(env.Styles).color {
		st = textinput.DefaultStyles(true)
		st.Cursor.Blink = false
	}
	in.SetStyles(st)
	in.SetValue(value)
	in.CursorEnd()
	return &field{label: label, input: in}
}

func (f *form) Init() tea.Cmd {
	f.focusField()
	return nil
}

func (f *form) Title() string { return f.title }

func (f *form) Capturing() bool { return f.stage == editing && len(f.fields) > 0 }

func (f *form) Keys() []key.Binding {
	ks := []key.Binding{keySubmit, keyConfirm, keyCancel}
	if len(f.fields) > 1 {
		ks = append(ks, keyNext, keyPrev)
	}
	if f.choice != nil {
		var letters []string
		for _, v := range f.choice.values {
			letters = append(letters, v[:1])
		}
		ks = append(ks, keyPickUp, keyPickDn, key.NewBinding(key.WithKeys(letters...),
			key.WithHelp(strings.Join(letters, "/"), strings.Join(f.choice.values, " / "))))
	}
	return ks
}

func (f *form) focusField() {
	for i, fl := range f.fields {
		if i == f.focus && f.stage == editing {
			fl.input.Focus()
		} else {
			fl.input.Blur()
		}
	}
}

func (f *form) Update(msg tea.Msg) (View, tea.Cmd) {
	switch m := msg.(type) {
	case formDone:
		if m.f != f || m.gen != f.gen || f.stage != running {
			return f, nil
		}
		f.cancel = nil
		if m.err != nil {
			if f.onErr != nil {
				f.onErr(m.err)
			}
			f.stage = editing
			if len(f.fields) == 0 && f.choice == nil {
				f.stage = confirming
			}
			f.errText = m.err.Error()
			f.focusField()
			return f, status(m.err.Error(), true)
		}
		f.errText = ""
		if f.done != nil {
			return f, f.done(m.res)
		}
		return f, tea.Batch(pop, status(f.ok, false))
	case ChangedMsg:
		if f.onChange != nil {
			f.onChange(m)
		}
		return f, nil
	case tea.KeyPressMsg:
		return f, f.key(m)
	case tea.PasteMsg:
		if f.stage == editing && len(f.fields) > 0 {
			var cmd tea.Cmd
			f.fields[f.focus].input, cmd = f.fields[f.focus].input.Update(m)
			return f, cmd
		}
	}
	return f, nil
}

func (f *form) key(m tea.KeyPressMsg) tea.Cmd {
	switch f.stage {
	case running:
		if key.Matches(m, keyCancel) && f.onEsc != nil {
			return f.onEsc()
		}
		return nil
	case confirming:
		switch {
		case key.Matches(m, keyConfirm):
			return f.start()
		case key.Matches(m, keyCancel), m.String() == "n", m.String() == "q":
			if len(f.fields) == 0 && f.choice == nil {
				return pop
			}
			f.stage = editing
			f.question = ""
			f.focusField()
		}
		return nil
	}
	switch {
	case key.Matches(m, keyCancel):
		return pop
	case key.Matches(m, keySubmit):
		q, err := f.ask()
		if err != nil {
			f.errText = err.Error()
			return status(err.Error(), true)
		}
		f.errText = ""
		f.question = q
		f.stage = confirming
		f.focusField()
		return nil
	case f.choice != nil && len(f.fields) == 0:
		c := f.choice
		switch {
		case key.Matches(m, keyPickUp):
			c.current = (c.current + len(c.values) - 1) % len(c.values)
		case key.Matches(m, keyPickDn):
			c.current = (c.current + 1) % len(c.values)
		case m.String() == "q":
			return pop
		default:
			for i, v := range c.values {
				if m.String() == v[:1] {
					c.current = i
				}
			}
		}
		return nil
	case len(f.fields) > 1 && key.Matches(m, keyNext):
		f.focus = (f.focus + 1) % len(f.fields)
		f.focusField()
		return nil
	case len(f.fields) > 1 && key.Matches(m, keyPrev):
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
		f.focusField()
		return nil
	case len(f.fields) > 0:
		var cmd tea.Cmd
		f.fields[f.focus].input, cmd = f.fields[f.focus].input.Update(m)
		return cmd
	case m.String() == "q":
		return pop
	}
	return nil
}

// start runs the operation: a new generation, so that the answer of one
// given up on is not taken for this one's.
func (f *form) start() tea.Cmd {
	f.stage = running
	f.question = ""
	f.focusField()
	return f.run(f.act)
}

// run runs fn off the UI loop and hands its answer back as a formDone of
// the current generation.
func (f *form) run(fn func(ctx context.Context) (any, error)) tea.Cmd {
	f.gen++
	gen := f.gen
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	return func() tea.Msg {
		defer cancel()
		res, err := guarded(ctx, fn)
		return formDone{f: f, gen: gen, res: res, err: err}
	}
}

// guarded runs an operation; a panic in it is an error on the status
// line, not the end of the UI.
func guarded(ctx context.Context, fn func(ctx context.Context) (any, error)) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	return fn(ctx)
}

func (f *form) value(i int) string { return f.fields[i].input.Value() }

func (f *form) Render(width, height int) string {
	lk := lookOf(f.env.Styles)
	var lines []string
	lines = append(lines, lk.title.Render(f.title))
	for _, a := range f.about {
		lines = append(lines, a)
	}
	lines = append(lines, "")
	lw := 0
	for _, fl := range f.fields {
		lw = max(lw, ansi.StringWidth(fl.label))
	}
	for i, fl := range f.fields {
		mark := "  "
		if i == f.focus && f.stage == editing {
			mark = "> "
		}
		fl.input.SetWidth(max(1, width-lw-5))
		lines = append(lines, mark+lk.label.Render(padRight(fl.label, lw))+"  "+fl.input.View())
	}
	if c := f.choice; c != nil {
		lines = append(lines, lk.label.Render(c.label))
		for i, v := range c.values {
			mark := "  ( ) "
			if i == c.current {
				mark = "> (•) "
			}
			line := mark + padRight(v, 8) + c.help[i]
			if i == c.current {
				line = lk.sel.Render(line)
			}
			lines = append(lines, line)
		}
	}
	lines = append(lines, "")
	switch f.stage {
	case confirming:
		lines = append(lines, lk.warn.Render(f.question))
		lines = append(lines, lk.dim.Render("y confirm · esc back"))
	case running:
		lines = append(lines, lk.dim.Render(f.doing))
	default:
		if f.errText != "" {
			lines = append(lines, lk.bad.Render("error: "+f.errText))
		}
		lines = append(lines, lk.dim.Render(f.hint()))
	}
	if len(f.out) > 0 {
		lines = append(lines, "")
		for _, o := range f.out {
			lines = append(lines, wrap(o, width)...)
		}
	}
	// the newest lines matter most: a long exchange keeps its end in view
	if len(lines) > height {
		lines = lines[len(lines)-height:]
	}
	return frame(lines, width, height)
}

func (f *form) hint() string {
	var parts []string
	if len(f.fields) > 1 {
		parts = append(parts, "tab next field")
	}
	if f.choice != nil {
		parts = append(parts, "↑/↓ choose")
	}
	parts = append(parts, "enter submit", "esc cancel")
	return strings.Join(parts, " · ")
}

// pop asks the app to close the top view.
func pop() tea.Msg { return PopMsg{} }

// status puts text on the app's status line.
func status(text string, isErr bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Err: isErr} }
}

// frame cuts lines to width and height and pads them out, so that a view
// always fills exactly the space it is given (a resize leaves nothing behind).
func frame(lines []string, width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	out := make([]string, height)
	for i := range out {
		var l string
		if i < len(lines) {
			l = ansi.Truncate(lines[i], width, "…")
		}
		out[i] = l + strings.Repeat(" ", max(0, width-ansi.StringWidth(l)))
	}
	return strings.Join(out, "\n")
}

// wrap breaks text into lines of at most width cells (words kept whole
// where they fit).
func wrap(s string, width int) []string {
	if width <= 0 {
		return nil
	}
	return strings.Split(lipgloss.Wrap(s, width, ""), "\n")
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}
