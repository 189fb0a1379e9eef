package ui

import "charm.land/lipgloss/v2"

// look is what the dialogs and the read-only views draw with, taken from
// the app's Styles (all plain with no Styles at all).
type look struct {
	title, head, sel, dim, bad, good, warn, busy, label lipgloss.Style
	color                                               bool
}

func lookOf(s *Styles) look {
	if s == nil {
		return look{}
	}
	return look{title: s.Title, head: s.TableHead, sel: s.Selected, dim: s.Dim, bad: s.Bad, good: s.Good,
		warn: s.Warn, busy: s.Busy, label: s.Label, color: s.Color}
}
