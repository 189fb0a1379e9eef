package show

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/tidwall/gjson"
)

// printTSV prints the document as "field<TAB>value" lines: nested fields
// as dotted paths, array items by index, null and empty values left out,
// strings unquoted (tabs and newlines as spaces), numbers of …At fields as
// RFC 3339 times.
func printTSV(w io.Writer, res *Result) error {
	doc, err := marshal(res)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	Flatten(gjson.ParseBytes(doc), "", func(path, value string) {
		bw.WriteString(path)
		bw.WriteByte('\t')
		bw.WriteString(value)
		bw.WriteByte('\n')
	})
	return bw.Flush()
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Flatten calls emit for every scalar under v with its dotted path.
func Flatten(v gjson.Result, path string, emit func(path, value string)) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch {
	case v.IsObject():
		v.ForEach(func(k, x gjson.Result) bool {
			Flatten(x, join(k.String()), emit)
			return true
		})
	case v.IsArray():
		i := 0
		v.ForEach(func(_, x gjson.Result) bool {
			Flatten(x, join(strconv.Itoa(i)), emit)
			i++
			return true
		})
	case v.Type == gjson.Null || !v.Exists():
	case v.Type == gjson.String:
		if v.Str != "" {
			emit(path, output.TSVCell(v.Str))
		}
	case v.Type == gjson.Number && isTimeField(path):
		emit(path, rfc3339(int64(v.Num)))
	default:
		emit(path, v.Raw)
	}
}

// isTimeField: the last path element names a time in ms (updatedAt,
// createdAt, archiveAtMs, …).
func isTimeField(path string) bool {
	name := path[strings.LastIndexByte(path, '.')+1:]
	return strings.HasSuffix(name, "At") || strings.HasSuffix(name, "AtMs") || name == "since"
}

func rfc3339(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// printFleet: JSON the document; piped its "field<TAB>value" lines
// (sessions.0.context, sessions.0.key, …, errors.0.context); on a terminal
// each host's session as `show` prints one, under its context's name.
func (o *Options) printFleet(out *FleetResult) error {
	f := o.f
	if f.JSONMode() {
		return f.PrintJSON(out)
	}
	if !f.IO.IsStdoutTTY() {
		doc, err := marshal(out)
		if err != nil {
			return err
		}
		var b strings.Builder
		Flatten(gjson.ParseBytes(doc), "", func(path, value string) {
			b.WriteString(path + "\t" + value + "\n")
		})
		_, err = fmt.Fprint(f.IO.Out, b.String())
		return err
	}
	now := f.Now()
	for i, res := range out.Sessions {
		if i > 0 {
			fmt.Fprintln(f.IO.Out)
		}
		fmt.Fprintf(f.IO.Out, "== context %s\n", res.Context)
		if err := printTTY(f, res, now); err != nil {
			return err
		}
	}
	return nil
}

// keyW is the width of the terminal view's keys.
const keyW = 16

// view writes the terminal view of one session.
type view struct {
	w     *bufio.Writer
	cs    iostreams.ColorScheme
	width int
	now   time.Time
}

// printTTY is the readable view: key/value sections.
func printTTY(f *cmdutil.Factory, res *Result, now time.Time) error {
	v := &view{w: bufio.NewWriter(f.IO.Out), cs: f.IO.ColorScheme(), width: f.IO.TerminalWidth(), now: now}
	v.header(res)
	v.transcript(res)
	v.lineage(res)
	v.runs(res)
	v.entry(res)
	return v.w.Flush()
}

// line prints a value whole (keys and paths are copied from here); nothing
// when it is empty.
func (v *view) line(k, val string) {
	if val != "" {
		fmt.Fprintf(v.w, "  %-*s%s\n", keyW, k, val)
	}
}

// clipped prints a value cut to the terminal's width.
func (v *view) clipped(kw int, k, val string) {
	val = strings.ReplaceAll(val, "\n", " ")
	if v.width > kw+6 {
		val = runewidth.Truncate(val, v.width-kw-2, "…")
	}
	fmt.Fprintf(v.w, "  %-*s%s\n", kw, k, val)
}

func (v *view) section(title string) {
	fmt.Fprintf(v.w, "\n%s\n", v.cs.Bold(title))
}

// when is a time (ms) and how long ago it was.
func (v *view) when(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return rfc3339(ms) + " (" + cells.Ago(v.now.Sub(time.UnixMilli(ms))) + ")"
}

// header: the key, then who and what the session is.
func (v *view) header(res *Result) {
	title := res.Key
	if res.StoreKey != res.Key {
		title += "  " + v.cs.Gray("("+res.StoreKey+")")
	}
	if res.Orphan {
		title = "orphan transcript " + res.SessionID + "  " + v.cs.Gray("(no session entry points to it)")
	}
	fmt.Fprintln(v.w, v.cs.Bold(title))
	v.line("belonged to", res.BelongedTo)
	v.line("agent", res.AgentID)
	v.line("kind", res.Kind)
	v.line("channel", res.Channel)
	v.line("sessionId", res.SessionID)
	v.line("label", res.Label)
	v.line("displayName", res.DisplayName)
	if res.UpdatedAt != nil {
		v.line("updated", v.when(int64(*res.UpdatedAt)))
	}
	v.line("store", res.Store)
	if m := res.Model; m != nil {
		v.line("model", slash(m.Provider, m.Model))
		v.line("model override", slash(m.ProviderOverride, m.ModelOverride))
	}
	if t := res.Tokens; t != nil {
		var parts []string
		for _, p := range []struct {
			name string
			v    *float64
		}{{"input", t.Input}, {"output", t.Output}, {"total", t.Total}, {"context", t.Context}} {
			if p.v != nil {
				parts = append(parts, p.name+" "+strconv.FormatFloat(*p.v, 'f', -1, 64))
			}
		}
		v.line("tokens", strings.Join(parts, " · "))
	}
}

// transcript: where it is, its messages, and the lock on it.
func (v *view) transcript(res *Result) {
	v.section("Transcript")
	tr := res.Transcript
	if tr.InStore {
		v.line("stored in", "the SQLite store (OpenClaw 2026.8+)")
	} else {
		v.line("path", tr.Path)
	}
	if !tr.Exists {
		v.line("messages", "none yet")
	} else {
		if tr.Bytes != nil {
			v.line("size", size(*tr.Bytes))
		}
		v.line("messages", strconv.Itoa(tr.Messages))
		v.line("first", v.when(tr.FirstMessageAt))
		v.line("last", v.when(tr.LastMessageAt))
	}
	for i, e := range res.EarlierTranscripts {
		k := ""
		if i == 0 {
			k = "earlier"
		}
		v.line(k, fmt.Sprintf("%s  %d messages (%s: %s)", e.SessionID, e.Messages, e.Source, cmpOr(e.Path, e.Archive)))
	}
	if tr.InStore {
		return
	}
	switch l := res.Lock; {
	case l == nil:
		v.line("lock", "free (no OpenClaw run on it)")
	case res.Busy:
		v.line("lock", v.cs.Yellow(fmt.Sprintf("held by pid %d for %s: an OpenClaw run is busy on it", l.PID, held(l.AgeSeconds))))
	default:
		why := "holder dead"
		if l.Alive {
			why = "stale"
		}
		v.line("lock", fmt.Sprintf("left by pid %d %s ago (%s; the next writer evicts it)", l.PID, held(l.AgeSeconds), why))
	}
}

// lineage: who spawned the session, whom it spawned.
func (v *view) lineage(res *Result) {
	v.section("Lineage")
	v.line("spawned by", cmpOr(res.Lineage.SpawnedBy, "-"))
	if len(res.Lineage.Children) == 0 {
		v.line("children", "none")
	}
	for i, c := range res.Lineage.Children {
		k := ""
		if i == 0 {
			k = "children"
		}
		fmt.Fprintf(v.w, "  %-*s%s\n", keyW, k, c)
	}
}

// runs: one line per run, newest first.
func (v *view) runs(res *Result) {
	v.section(fmt.Sprintf("Runs (%d)", len(res.Runs)))
	if len(res.Runs) == 0 {
		fmt.Fprintf(v.w, "  none\n")
	}
	for _, r := range res.Runs {
		desc := r.Kind + " " + r.Status
		if r.Role == ops.ShowRoleRequester {
			desc += " → " + r.Peer
		} else if r.Peer != "" {
			desc += " ← " + r.Peer
		}
		if r.Label != "" {
			desc += " [" + r.Label + "]"
		}
		if r.CreatedAt > 0 {
			desc += " · " + cells.Ago(v.now.Sub(time.UnixMilli(r.CreatedAt)))
		}
		if r.Summary != "" {
			desc += " · " + r.Summary
		}
		fmt.Fprintf(v.w, "  %s  %s\n", r.RunID, desc+" ("+r.Source+")")
	}
}

// entry: every field of the entry as stored, values cut to the width.
func (v *view) entry(res *Result) {
	v.section("Entry")
	if res.Orphan {
		fmt.Fprintf(v.w, "  none (an orphan transcript)\n")
		return
	}
	entryW := keyW
	gjson.ParseBytes(res.Entry).ForEach(func(k, _ gjson.Result) bool {
		entryW = max(entryW, min(len(k.String())+1, 28))
		return true
	})
	gjson.ParseBytes(res.Entry).ForEach(func(k, x gjson.Result) bool {
		val := x.Raw
		switch {
		case x.Type == gjson.String && x.Str != "":
			val = x.Str
		case x.IsObject() || x.IsArray():
			var buf bytes.Buffer
			if json.Compact(&buf, []byte(x.Raw)) == nil {
				val = buf.String()
			}
		}
		if len(k.String()) >= entryW {
			fmt.Fprintf(v.w, "  %s\n", k.String())
			v.clipped(entryW, "", val)
			return true
		}
		v.clipped(entryW, k.String(), val)
		return true
	})
}

func slash(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// size is a byte count for people: 812 B, 12.3 KiB, 4.0 MiB.
func size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// held is a short duration: 12s, 4m10s, 3h02m, 2d03h.
func held(secs int64) string {
	d := time.Duration(secs) * time.Second
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", secs)
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), secs%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours()/24), int(d.Hours())%24)
}
