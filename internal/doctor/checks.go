package doctor

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// OrphanGrace is how old an orphan transcript must be before it is
// reported: OpenClaw creates a session's transcript a moment before its
// store entry, so a brand-new unreferenced file is a turn in progress.
const OrphanGrace = 10 * time.Minute

// Check runs every check over a snapshot. globalScope is session.scope
// "global" (the key "global" is then the main session, not reserved).
func Check(snap *Snapshot, globalScope bool) []Finding {
	var out []Finding
	out = append(out, checkLocks(snap)...)
	for _, a := range snap.Agents {
		out = append(out, checkStore(a, globalScope)...)
		out = append(out, checkSQLite(a, snap.limits())...)
	}
	out = append(out, checkTranscripts(snap)...)
	out = append(out, checkOwn(snap)...)
	out = append(out, checkIndex(snap)...)
	Sort(out)
	return out
}

// sq quotes s for a POSIX shell.
func sq(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:+@%=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// gatewayCall is OpenClaw's own command for a session RPC (it needs the
// gateway running).
func gatewayCall(method, key string) string {
	return "openclaw gateway call " + method + " --params " + sq(fmt.Sprintf(`{"key":%q}`, key))
}

func age(now, since time.Time) string {
	d := now.Sub(since).Round(time.Second)
	switch {
	case d < 0:
		return "0s"
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return d.String()
}

func checkLocks(snap *Snapshot) []Finding {
	var out []Finding
	for _, l := range snap.Locks {
		f := Finding{Path: l.Path, AgentID: l.AgentID, SessionKey: l.SessionKey}
		what := "store lock of " + l.StorePath
		if l.Kind == "transcript" {
			what = "transcript lock"
			if l.SessionKey != "" {
				what += " of " + l.SessionKey
			}
		}
		switch {
		case l.Type != "":
			f.Severity, f.Check = SevError, "lock.not-a-file"
			f.Message = fmt.Sprintf("the %s path is a %s, not a lock file: neither OpenClaw nor sessions can take this lock (writes wait, then fail); it was not opened", what, l.Type)
			if l.Type == "directory" {
				f.Fix = "ls -la " + sq(l.Path) + " && rmdir -- " + sq(l.Path)
			} else {
				f.Fix = "ls -la " + sq(l.Path) + " && rm -- " + sq(l.Path)
			}
		case !l.Alive && (l.PID > 0 || l.Stale):
			f.Severity, f.Check, f.Fixable = SevWarning, "lock.dead", true
			who := "an unknown holder"
			if l.PID > 0 {
				who = fmt.Sprintf("pid %d, which no longer runs", l.PID)
			}
			f.Message = fmt.Sprintf("%s left by %s (held %s): the next writer evicts it after waiting; nothing is writing", what, who, age(snap.Now, l.Since))
			f.Fix = FixCommand
			f.action = action{kind: actRemoveLock, storePath: l.StorePath, lockKind: l.Kind}
		case l.PID <= 0:
			f.Severity, f.Check = SevInfo, "lock.held"
			f.Message = fmt.Sprintf("%s with no pid in its payload, %s old: a writer between creating and filling it, or one that crashed there; OpenClaw evicts it once past its stale limit (%s)", what, age(snap.Now, l.Since), staleLimit(l.Kind))
			f.Fix = "cat " + sq(l.Path)
		case l.Stale:
			f.Severity, f.Check = SevWarning, "lock.stale"
			f.Message = fmt.Sprintf("%s held by live pid %d for %s, past OpenClaw's stale limit (%s): OpenClaw will evict it and write beside that process", what, l.PID, age(snap.Now, l.Since), staleLimit(l.Kind))
			f.Fix = fmt.Sprintf("ps -o pid,etime,args -p %d", l.PID)
		default:
			f.Severity, f.Check = SevInfo, "lock.held"
			f.Message = fmt.Sprintf("%s held by live pid %d for %s", what, l.PID, age(snap.Now, l.Since))
			f.Fix = fmt.Sprintf("ps -o pid,etime,args -p %d", l.PID)
		}
		out = append(out, f)
	}
	return out
}

func staleLimit(kind string) string {
	if kind == "store" {
		return "30s"
	}
	return "30m"
}

// legacyHomes are the state dirs of OpenClaw's former names.
var legacyHomes = []string{"/.clawdbot/", "/.moltbot/", "/.moldbot/"}

func checkStore(a AgentFacts, globalScope bool) []Finding {
	st := a.Store
	if st == nil {
		return nil
	}
	var out []Finding
	add := func(f Finding) {
		f.AgentID = a.ID
		if f.Path == "" {
			f.Path = st.Path
		}
		out = append(out, f)
	}
	switch {
	case st.Missing:
		return nil
	case st.Unreadable != "":
		add(Finding{Severity: SevError, Check: "store.unreadable",
			Message: "sessions.json cannot be read (" + st.Unreadable + "): OpenClaw treats it as empty and overwrites it on its next write",
			Fix:     "ls -l " + sq(st.Path) + " && chmod u+rw " + sq(st.Path)})
		return out
	case st.Corrupt != "":
		add(Finding{Severity: SevError, Check: "store.corrupt",
			Message: "sessions.json is corrupt (" + st.Corrupt + "): OpenClaw loads it as empty and replaces it, losing every entry, on its next write; sessions refuses to write it",
			Fix:     "cp -p " + sq(st.Path) + " " + sq(st.Path+".corrupt") + " && ${EDITOR:-vi} " + sq(st.Path)})
		return out
	}
	if st.JSON5 {
		add(Finding{Severity: SevInfo, Check: "store.json5",
			Message: "sessions.json is JSON5, not strict JSON (comments, trailing commas or unquoted keys): OpenClaw reads it, and rewrites it as strict JSON, dropping comments, on its next write",
			Fix:     "none needed"})
	}
	if st.Skipped > 0 {
		add(Finding{Severity: SevWarning, Check: "store.not-objects",
			Message: fmt.Sprintf("%d value(s) of sessions.json are not objects: no session is listed for them", st.Skipped),
			Fix:     "${EDITOR:-vi} " + sq(st.Path)})
	}
	labels := map[string][]string{}
	for _, e := range st.Entries {
		switch {
		case keys.IsReserved(e.Key) && !(globalScope && e.Key == keys.Global):
			add(Finding{Severity: SevWarning, Check: "entry.reserved-key", SessionKey: e.Key,
				Message: fmt.Sprintf("key %q is reserved: OpenClaw never lists it and no tool can reach it", e.Key),
				Fix:     gatewayCall("sessions.delete", e.Key)})
			continue
		case e.SessionID == "":
			add(Finding{Severity: SevWarning, Check: "entry.no-session-id", SessionKey: e.Key,
				Message: "entry has no sessionId: it has no transcript and OpenClaw gives it a new one on its next turn",
				Fix:     gatewayCall("sessions.reset", e.Key)})
			continue
		case e.Invalid != "":
			add(Finding{Severity: SevError, Check: "entry.bad-session-id", SessionKey: e.Key,
				Message: "entry's sessionId cannot name a transcript file: " + e.Invalid,
				Fix:     gatewayCall("sessions.delete", e.Key)})
			continue
		}
		if e.Label != "" {
			labels[e.Label] = append(labels[e.Label], e.Key)
		}
		if sf := e.SessionFile; sf != "" {
			for _, h := range legacyHomes {
				if strings.Contains(sf, h) {
					add(Finding{Severity: SevWarning, Check: "transcript.legacy-path", SessionKey: e.Key,
						Message: "sessionFile " + sf + " is still under a legacy " + strings.Trim(h, "/") + " home: OpenClaw appends there, not in the state dir",
						Fix:     gatewayCall("sessions.reset", e.Key)})
					break
				}
			}
		}
		switch {
		case e.Outside != "":
			add(Finding{Severity: SevWarning, Check: "transcript.outside", SessionKey: e.Key,
				Message: "the transcript lies outside the state dir: sessions never opens it (" + e.Outside + ")",
				Fix:     "mv -n -- " + sq(sfOrID(e)) + " " + sq(st.Dir+"/")})
		case e.Links > 1:
			add(Finding{Severity: SevWarning, Check: "transcript.linked", SessionKey: e.Key, Path: e.Transcript,
				Message: fmt.Sprintf("the transcript has %d links (hard links): another name may lie outside the state dir; an agent (--as, the MCP server) never reads it — remove the other names, or with OpenClaw stopped give this one a copy of its own (cp -p, then mv over it)", e.Links),
				Fix:     "find / -xdev -samefile " + sq(e.Transcript) + " 2>/dev/null"})
		case !e.Exists && e.Transcript != "" && a.SQLite == nil:
			// (beside a 2026.8+ database the transcripts are in it: the
			// legacy store's finding says what to do)
			add(Finding{Severity: SevInfo, Check: "transcript.missing", SessionKey: e.Key, Path: e.Transcript,
				Message: "the entry's transcript does not exist: its history is empty (a session that never ran a turn, or a deleted file)",
				Fix:     gatewayCall("sessions.reset", e.Key)})
		}
	}
	names := make([]string, 0, len(labels))
	for l, ks := range labels {
		if len(ks) > 1 {
			names = append(names, l)
		}
	}
	slices.Sort(names)
	for _, l := range names {
		ks := labels[l]
		fix := ""
		if len(ks) <= 3 {
			fixes := make([]string, 0, len(ks)-1)
			for _, k := range ks[1:] {
				fixes = append(fixes, "sessions patch "+sq(k)+" --clear-label")
			}
			fix = strings.Join(fixes, " && ")
		} else {
			// Keep the label on the newest, clear it on the others.
			fix = fmt.Sprintf("sessions --agent %s list --limit %d --jq %s | tail -n +2 | xargs -I{} sessions --agent %s patch {} --clear-label",
				sq(a.ID), len(st.Entries), sq(fmt.Sprintf(".sessions[] | select(.label == %q) | .key", l)), sq(a.ID))
		}
		shown := ks
		more := ""
		if len(ks) > 5 {
			shown, more = ks[:5], fmt.Sprintf(" and %d more", len(ks)-5)
		}
		add(Finding{Severity: SevWarning, Check: "entry.duplicate-label", SessionKey: ks[0],
			Message: fmt.Sprintf("label %q is on %d sessions (%s%s): OpenClaw requires labels unique per store and resolves the label to one of them", l, len(ks), strings.Join(shown, ", "), more),
			Fix:     fix})
	}
	return out
}

func sfOrID(e EntryFact) string {
	if e.SessionFile != "" {
		return e.SessionFile
	}
	return e.SessionID + ".jsonl"
}

func checkSQLite(a AgentFacts, lim Limits) []Finding {
	var out []Finding
	if db := a.SQLite; db != nil {
		add := func(sev, check, msg, fix string) {
			out = append(out, Finding{Severity: sev, Check: check, Path: db.Path, AgentID: a.ID, Message: msg, Fix: fix})
		}
		switch {
		case db.Err != "":
			add(SevError, "sqlite.unreadable", "the OpenClaw 2026.8+ store cannot be read: "+db.Err, "openclaw doctor --fix")
		default:
			switch v := db.UserVersion; {
			case v == sqlitestore.SchemaVersion:
			case v > sqlitestore.ReadSchemaVersion:
				// Newer than we know: OpenClaw's doctor cannot make it older.
				add(SevWarning, "sqlite.schema", fmt.Sprintf("schema version %d, newer than %d (%s), the newest this version of sessions knows: it reads what it knows and refuses to write it directly", v, sqlitestore.ReadSchemaVersion, sqlitestore.ReadSchemaOpenClaw),
					"write through the running OpenClaw gateway (sessions uses it when it is live, or name it with --gateway/--context); install a newer sessions to read it completely")
			case v > sqlitestore.SchemaVersion:
				// A newer OpenClaw's store, read completely; nothing is wrong.
				add(SevInfo, "sqlite.schema", fmt.Sprintf("schema version %d (%s): sessions reads it; it writes it only through the running OpenClaw gateway, directly it writes schema %d (OpenClaw 2026.9.6) alone", v, sqlitestore.ReadSchemaOpenClaw, sqlitestore.SchemaVersion),
					"write through the running OpenClaw gateway (sessions uses it when it is live, or name it with --gateway/--context)")
			default:
				// Older: OpenClaw migrates it forward.
				add(SevWarning, "sqlite.schema", fmt.Sprintf("schema version %d, older than %d (OpenClaw 2026.9.6): sessions reads it but refuses to write it until OpenClaw migrates it", v, sqlitestore.SchemaVersion), "openclaw doctor --fix")
			}
			if db.QuickCheck != "ok" {
				add(SevError, "sqlite.quick-check", "PRAGMA quick_check: "+db.QuickCheck, "openclaw doctor --fix")
			}
			if db.InvalidCount > 0 {
				add(SevError, "sqlite.invalid-entries", fmt.Sprintf("%d session row(s) with entry_valid != 1 (%s): OpenClaw refuses to write them until repaired", db.InvalidCount, strings.Join(db.Invalid, ", ")), "openclaw doctor --fix")
			}
		}
		out = append(out, checkSQLiteUse(a, db, lim)...)
		out = append(out, checkLegacy(a)...)
	}
	for _, p := range a.Leftovers {
		out = append(out, Finding{Severity: SevInfo, Check: "sqlite.import-leftover", Path: p, AgentID: a.ID,
			Message: "an import archive openclaw doctor left after moving this file into SQLite; nothing reads it",
			Fix:     "rm -- " + sq(p)})
	}
	return out
}

func checkTranscripts(snap *Snapshot) []Finding {
	var out []Finding
	// Every file any entry of any store points at.
	refs := map[string]bool{}
	keyOf := map[string]string{}
	for _, a := range snap.Agents {
		if a.Store == nil {
			continue
		}
		for _, e := range a.Store.Entries {
			if e.Transcript != "" {
				refs[e.Transcript] = true
				keyOf[e.Transcript] = e.Key
			}
			if e.SessionID != "" {
				refs[filepath.Join(a.Store.Dir, e.SessionID+".jsonl")] = true
			}
			if e.SessionFile != "" {
				refs[filepath.Join(a.Store.Dir, filepath.Base(e.SessionFile))] = true
			}
		}
	}
	locked := map[string]bool{}
	for _, l := range snap.Locks {
		if l.Kind == "transcript" {
			locked[strings.TrimSuffix(l.Path, ".lock")] = true
		}
	}
	// With a store that cannot be read, nobody knows which transcripts its
	// entries point at: no file is called an orphan then.
	blind := false
	for _, a := range snap.Agents {
		if a.Store != nil && (a.Store.Corrupt != "" || a.Store.Unreadable != "") {
			blind = true
		}
	}
	for _, a := range snap.Agents {
		storePath := a.StorePath
		for _, t := range a.Transcripts {
			key := keyOf[t.Path]
			add := func(sev, check, msg, fix string) {
				out = append(out, Finding{Severity: sev, Check: check, Path: t.Path, AgentID: a.ID, SessionKey: key, Message: msg, Fix: fix})
			}
			if t.ReadErr != "" {
				add(SevError, "transcript.unreadable", "cannot be read: "+t.ReadErr, "ls -l "+sq(t.Path))
				continue
			}
			orphan := !refs[t.Path] && !refs[filepath.Join(filepath.Dir(t.Path), filepath.Base(t.Path))]
			if orphan {
				if blind || locked[t.Path] || snap.Now.Sub(t.ModTime) < OrphanGrace {
					continue // a turn in progress: its entry comes next
				}
				f := Finding{Severity: SevWarning, Check: "transcript.orphan", Path: t.Path, AgentID: a.ID,
					Message: fmt.Sprintf("no session entry points to this transcript (%s): no OpenClaw tool can reach it", bytesStr(t.Size)),
					Fix:     FixCommand, Fixable: true,
					action: action{kind: actRenameOrphan, storePath: storePath, sessionID: strings.TrimSuffix(filepath.Base(t.Path), ".jsonl")}}
				out = append(out, f)
				continue // an orphan's contents matter to nobody
			}
			fixReset := "sessions history " + sq(key) + " --raw >/dev/null"
			if key != "" {
				fixReset = gatewayCall("sessions.reset", key)
			}
			switch t.Header {
			case "missing":
				add(SevError, "transcript.empty", "the transcript is empty: OpenClaw writes a header with a random id over it on its next turn; sessions refuses to append", fixReset)
			case "bad":
				add(SevError, "transcript.bad-header", "the first line is not a session header: OpenClaw overwrites the whole file with a fresh header on its next turn (history lost); sessions refuses to append", "cp -p "+sq(t.Path)+" "+sq(t.Path+".bak")+" && "+fixReset)
			}
			if t.Corrupt > 0 {
				add(SevWarning, "transcript.corrupt-lines", fmt.Sprintf("%d corrupt line(s) (not JSON or not UTF-8), the first at line %d: readers skip them", t.Corrupt, t.FirstCorrupt), fmt.Sprintf("sed -n '%dp' %s", t.FirstCorrupt, sq(t.Path)))
			}
			if t.Torn && !locked[t.Path] {
				add(SevWarning, "transcript.torn", fmt.Sprintf("the last line (%d) is torn: no newline and not JSON (a writer died mid-append); the next append would be glued to it", t.TornLine), "printf '\\n' >> "+sq(t.Path))
			}
			if t.BrokenParents > 0 {
				add(SevWarning, "transcript.broken-parents", fmt.Sprintf("%d entr(ies) name a parentId no earlier entry has, the first at line %d: the model's context is cut off there", t.BrokenParents, t.FirstBroken), fmt.Sprintf("sed -n '%dp' %s", t.FirstBroken, sq(t.Path)))
			}
			compact := "openclaw gateway call sessions.compact --params " + sq(fmt.Sprintf(`{"key":%q}`, key))
			if t.Size > snap.limits().FileBytes {
				add(SevWarning, "transcript.oversize-file", fmt.Sprintf("%s: OpenClaw reads the whole file on every turn", bytesStr(t.Size)), compact)
			}
			if t.Oversize > 0 {
				add(SevWarning, "transcript.oversize-line", fmt.Sprintf("%d line(s) longer than %s (longest %s), the first at line %d", t.Oversize, bytesStr(snap.limits().LineBytes), bytesStr(t.MaxLine), t.FirstOver), compact)
			}
		}
	}
	return out
}

func (s *Snapshot) limits() Limits {
	if s.Limits.FileBytes > 0 {
		return s.Limits
	}
	return DefaultLimits
}

func bytesStr(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func checkOwn(snap *Snapshot) []Finding {
	var out []Finding
	for p, e := range snap.OwnErrors {
		out = append(out, Finding{Severity: SevError, Check: "own.unreadable", Path: p, Message: "sessions' own state cannot be read: " + e, Fix: "ls -l " + sq(p)})
	}
	for _, r := range snap.Runs {
		if r.RunnerAlive {
			continue
		}
		if r.Status == "accepted" && snap.Now.Sub(time.UnixMilli(r.CreatedAt)) < 10*time.Second {
			continue // its runner is starting
		}
		out = append(out, Finding{Severity: SevWarning, Check: "run.dead", Path: r.Path, SessionKey: r.SessionKey,
			Message: fmt.Sprintf("run %s is %s but its runner is gone: waiters see it only once something ends it", r.RunID, r.Status),
			Fix:     FixCommand, Fixable: true, action: action{kind: actReapRun, runID: r.RunID}})
	}
	for _, d := range snap.Due {
		f := Finding{Severity: SevWarning, Check: "subagent.due", Path: filepath.Join(snap.StateDir, "sessions-cli", "archive-index.json"), AgentID: d.Agent, SessionKey: d.ChildKey,
			Message: fmt.Sprintf("sub-agent session past its archive time (%s)", time.UnixMilli(d.ArchiveAtMs).UTC().Format(time.RFC3339)),
			Fix:     FixCommand, Fixable: true, action: action{kind: actArchive, runID: d.RunID}}
		if d.RunnerAlive {
			f.Severity, f.Fixable, f.Fix = SevInfo, false, "sessions wait "+d.RunID
			f.Message += "; its run is still going, it is archived once it ends"
		}
		out = append(out, f)
	}
	for _, o := range snap.Outbox {
		out = append(out, Finding{Severity: SevWarning, Check: "outbox.undelivered", Path: filepath.Join(snap.StateDir, "sessions-cli", "outbox.jsonl"), SessionKey: o.SessionKey,
			Message: fmt.Sprintf("announce %s of run %s was never delivered (line %d): %s", o.ID, o.RunID, o.Line, o.Error),
			Fix:     fmt.Sprintf("sed -n '%dp' %s | <your --deliver hook command>", o.Line, sq(filepath.Join(snap.StateDir, "sessions-cli", "outbox.jsonl")))})
	}
	return out
}
