package ui

import (
	"charm.land/lipgloss/v2"
)

// Styles are the looks every view draws with. NewStyles(false) (NO_COLOR,
// --no-color) keeps only attributes that are not colour — bold, reverse,
// faint — so the selection and the header stay visible on any terminal.
type Styles struct {
	Color bool

	Header    lipgloss.Style // the app's top line
	Title     lipgloss.Style // a view's name in the header, a section title
	Status    lipgloss.Style // the bottom status line
	StatusErr lipgloss.Style // an error on the status line
	Selected  lipgloss.Style // the row under the cursor
	TableHead lipgloss.Style // column headings
	Dim       lipgloss.Style // secondary text: times, ids, collapsed tool lines
	Busy      lipgloss.Style // a busy marker, a running run
	Good      lipgloss.Style // ok, succeeded
	Warn      lipgloss.Style // a warning finding, a timeout
	Bad       lipgloss.Style // an error finding, a failed run
	Key       lipgloss.Style // a key in the help overlay and key hints
	Match     lipgloss.Style // a search match
	Label     lipgloss.Style // field names in a detail block
	User      lipgloss.Style // a user message's role
	Assistant lipgloss.Style // an assistant message's role
	Tool      lipgloss.Style // a tool call or result
	Thinking  lipgloss.Style // thinking text
	Border    lipgloss.Style // boxes: help overlay, dialogs
}

// NewStyles builds the styles; color false gives the plain set.
func NewStyles(color bool) *Styles {
	s := &Styles{Color: color}
	plain := lipgloss.NewStyle()
	s.Header = plain.Bold(true)
	s.Title = plain.Bold(true)
	s.Status = plain
	s.StatusErr = plain.Bold(true)
	s.Selected = plain.Reverse(true)
	s.TableHead = plain.Bold(true)
	s.Dim = plain.Faint(true)
	s.Busy = plain.Bold(true)
	s.Good = plain
	s.Warn = plain.Bold(true)
	s.Bad = plain.Bold(true)
	s.Key = plain.Bold(true)
	s.Match = plain.Reverse(true)
	s.Label = plain.Bold(true)
	s.User = plain.Bold(true)
	s.Assistant = plain.Bold(true)
	s.Tool = plain.Faint(true)
	s.Thinking = plain.Faint(true).Italic(true)
	s.Border = plain.Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if !color {
		return s
	}
	s.Header = s.Header.Foreground(lipgloss.BrightWhite).Background(lipgloss.Blue)
	s.Title = s.Title.Foreground(lipgloss.BrightCyan)
	s.StatusErr = s.StatusErr.Foreground(lipgloss.BrightRed)
	s.Selected = plain.Foreground(lipgloss.Black).Background(lipgloss.Cyan)
	s.TableHead = s.TableHead.Foreground(lipgloss.BrightYellow)
	s.Busy = s.Busy.Foreground(lipgloss.BrightMagenta)
	s.Good = s.Good.Foreground(lipgloss.Green)
	s.Warn = s.Warn.Foreground(lipgloss.Yellow)
	s.Bad = s.Bad.Foreground(lipgloss.BrightRed)
	s.Key = s.Key.Foreground(lipgloss.BrightCyan)
	s.Match = plain.Foreground(lipgloss.Black).Background(lipgloss.Yellow)
	s.Label = s.Label.Foreground(lipgloss.Cyan)
	s.User = s.User.Foreground(lipgloss.BrightGreen)
	s.Assistant = s.Assistant.Foreground(lipgloss.BrightBlue)
	s.Tool = s.Tool.Foreground(lipgloss.Magenta)
	s.Thinking = s.Thinking.Foreground(lipgloss.BrightBlack)
	s.Border = s.Border.BorderForeground(lipgloss.Cyan)
	return s
}
