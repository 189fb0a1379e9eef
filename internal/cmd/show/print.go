package show

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/openclaw/sessions/internal/era"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/openclaw/sessions/internal/cmdutil"
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

// printTTY is the readable view: key/value sections.
func printTTY(f *cmdutil.Factory, res *Result, now time.Time) error {
	cs := f.IO.ColorScheme()
	width := f.IO.TerminalWidth()
	w := bufio.NewWriter(f.IO.Out)
	const keyW = 16
	// line prints a value whole (keys and paths are copied from here);
	// clipped prints it cut to the terminal's width.
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "  %-*s%s\n", keyW, k, v)
		}
	}
	clipped := func(kw int, k, v string) {
		v = strings.ReplaceAll(v, "\n", " ")
		if width > kw+6 {
			v = runewidth.Truncate(v, width-kw-2, "…")
		}
		fmt.Fprintf(w, "  %-*s%s\n", kw, k, v)
	}
	section := func(title string) {
		fmt.Fprintf(w, "\n%s\n", cs.Bold(title))
	}
	when := func(ms int64) string {
		if ms <= 0 {
			return ""
		}
		return rfc3339(ms) + " (" + cmdutil.Ago(now.Sub(time.UnixMilli(ms))) + ")"
	}

	title := res.Key
	if res.StoreKey != res.Key {
		title += "  " + cs.Gray("("+res.StoreKey+")")
	}
	fmt.Fprintln(w, cs.Bold(title))
	line("agent", res.AgentID)
	line("kind", res.Kind)
	line("channel", res.Channel)
	line("sessionId", res.SessionID)
	line("label", res.Label)
	line("displayName", res.DisplayName)
	if res.UpdatedAt != nil {
		line("updated", when(int64(*res.UpdatedAt)))
	}
	line("store", res.Store)
	if m := res.Model; m != nil {
		line("model", slash(m.Provider, m.Model))
		line("model override", slash(m.ProviderOverride, m.ModelOverride))
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
		line("tokens", strings.Join(parts, " · "))
	}

	section("Transcript")
	tr := res.Transcript
	if res.Era == era.SQLite {
		line("stored in", "the SQLite store (OpenClaw 2026.8+)")
	} else {
		line("path", tr.Path)
	}
	if !tr.Exists {
		line("messages", "none yet")
	} else {
		if tr.Bytes != nil {
			line("size", size(*tr.Bytes))
		}
		line("messages", strconv.Itoa(tr.Messages))
		line("first", when(tr.FirstMessageAt))
		line("last", when(tr.LastMessageAt))
	}
	if res.Era != era.SQLite {
		switch l := res.Lock; {
		case l == nil:
			line("lock", "free (no OpenClaw run on it)")
		case res.Busy:
			line("lock", cs.Yellow(fmt.Sprintf("held by pid %d for %s: an OpenClaw run is busy on it", l.PID, held(l.AgeSeconds))))
		default:
			why := "holder dead"
			if l.Alive {
				why = "stale"
			}
			line("lock", fmt.Sprintf("left by pid %d %s ago (%s; the next writer evicts it)", l.PID, held(l.AgeSeconds), why))
		}
	}

	section("Lineage")
	line("spawned by", cmpOr(res.Lineage.SpawnedBy, "-"))
	if len(res.Lineage.Children) == 0 {
		line("children", "none")
	}
	for i, c := range res.Lineage.Children {
		k := ""
		if i == 0 {
			k = "children"
		}
		fmt.Fprintf(w, "  %-*s%s\n", keyW, k, c)
	}

	section(fmt.Sprintf("Runs (%d)", len(res.Runs)))
	if len(res.Runs) == 0 {
		fmt.Fprintf(w, "  none\n")
	}
	for _, r := range res.Runs {
		desc := r.Kind + " " + r.Status
		if r.Role == RoleRequester {
			desc += " → " + r.Peer
		} else if r.Peer != "" {
			desc += " ← " + r.Peer
		}
		if r.Label != "" {
			desc += " [" + r.Label + "]"
		}
		if r.CreatedAt > 0 {
			desc += " · " + cmdutil.Ago(now.Sub(time.UnixMilli(r.CreatedAt)))
		}
		if r.Summary != "" {
			desc += " · " + r.Summary
		}
		fmt.Fprintf(w, "  %s  %s\n", r.RunID, desc+" ("+r.Source+")")
	}

	section("Entry")
	entryW := keyW
	gjson.ParseBytes(res.Entry).ForEach(func(k, _ gjson.Result) bool {
		entryW = max(entryW, min(len(k.String())+1, 28))
		return true
	})
	gjson.ParseBytes(res.Entry).ForEach(func(k, v gjson.Result) bool {
		val := v.Raw
		switch {
		case v.Type == gjson.String && v.Str != "":
			val = v.Str
		case v.IsObject() || v.IsArray():
			var buf bytes.Buffer
			if json.Compact(&buf, []byte(v.Raw)) == nil {
				val = buf.String()
			}
		}
		if len(k.String()) >= entryW {
			fmt.Fprintf(w, "  %s\n", k.String())
			clipped(entryW, "", val)
			return true
		}
		clipped(entryW, k.String(), val)
		return true
	})
	return w.Flush()
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
