package cmdutil

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress is one line of progress on a terminal's stderr, redrawn in
// place (\r) and ended with a newline: what export and index show while
// they work. A command gives it only when stderr is a terminal (never on a
// pipe, never with --json); one that ends before its first report shows
// nothing.
type Progress struct {
	w     io.Writer
	label string
	shown bool
	now   func() time.Time
	start time.Time
	last  time.Time // the last bar drawn
	width int       // the widest line drawn (a shorter one is padded)
}

// NewProgress is a progress line on w, its reports prefixed "label: ".
func NewProgress(w io.Writer, label string) *Progress {
	return &Progress{w: w, label: label, now: time.Now}
}

// Count shows n things done ("export: 2000 messages").
func (p *Progress) Count(n int, unit string, done bool) {
	if !p.shown && done {
		return
	}
	p.shown = true
	fmt.Fprintf(p.w, "\r%s: %d %s", p.label, n, unit)
	if done {
		fmt.Fprintln(p.w)
	}
}

// barRedraw is how often a bar is redrawn at most.
const barRedraw = 100 * time.Millisecond

// Bytes shows a bar of bytes done out of total, with the time left at the
// pace so far (once a second has passed):
//
//	index: [##########··········]  50%  240.0 MiB / 480.0 MiB  ETA 0:12
//
// redrawn at most every 100 ms; done ends the line (drawn whole once
// something was shown).
func (p *Progress) Bytes(n, total int64, done bool) {
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	if done {
		if !p.shown {
			return
		}
	} else if p.shown && now.Sub(p.last) < barRedraw && n < total {
		return
	}
	p.shown, p.last = true, now
	const cells = 20
	frac := 1.0
	if total > 0 {
		frac = min(1, float64(n)/float64(total))
	}
	full := int(frac * cells)
	line := fmt.Sprintf("%s: [%s%s] %3d%%  %s / %s", p.label, strings.Repeat("#", full), strings.Repeat("·", cells-full),
		int(frac*100), Size(n), Size(total))
	switch elapsed := now.Sub(p.start); {
	case done:
		line += fmt.Sprintf("  in %s", clock(elapsed))
	case elapsed >= time.Second && n > 0 && total > n:
		left := time.Duration(float64(elapsed) * float64(total-n) / float64(n))
		line += "  ETA " + clock(left)
	default:
		line += "  ETA -:--"
	}
	pad := max(0, p.width-len([]rune(line)))
	p.width = max(p.width, len([]rune(line)))
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	if done {
		fmt.Fprintln(p.w)
	}
}

// clock is d as m:ss (h:mm:ss past an hour).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// Size is n bytes for people: 512 B, 1.5 KiB, 240.0 MiB, 3.5 GiB.
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
