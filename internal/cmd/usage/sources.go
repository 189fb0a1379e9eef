package usage

import (
	"errors"
	"github.com/openclaw/sessions/internal/era"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/usage"
)

// sessionInfo is what the store says about a sessionId.
type sessionInfo struct {
	key, kind, channel, cron string
	visible                  bool
}

// unitInfo is what discovery knows about a unit.
type unitInfo struct {
	agent     string
	sessionID string // JSONL units
	archived  bool
}

// catalog maps units to their agent and sessions to their store entries.
type catalog struct {
	units    []unitInfo
	sessions map[string]map[string]sessionInfo // agent → sessionId → info
}

// archiveRe matches a reset/deleted copy of a transcript: <sessionId>.jsonl.
// reset|deleted.<time>[.<generation>][.zst].
var archiveRe = regexp.MustCompile(`^(.+)\.jsonl\.(reset|deleted)\.[^/]+$`)

// discover lists the files to read: per agent, its SQLite store (2026.8+) or
// its JSONL transcripts — those the store points to, and the other
// <sessionId>.jsonl files of its sessions dir — and, with
// --include-archived, the .reset/.deleted copies.
func discover(s *state.State, o *Options) ([]usage.Unit, *catalog, error) {
	agents, err := s.AgentsInScope(o.AllAgents)
	if err != nil {
		return nil, nil, err
	}
	cat := &catalog{sessions: map[string]map[string]sessionInfo{}}
	var units []usage.Unit
	seen := map[string]bool{}
	add := func(u usage.Unit, info unitInfo) {
		if seen[u.Path] {
			return
		}
		seen[u.Path] = true
		units = append(units, u)
		cat.units = append(cat.units, info)
	}
	for _, agent := range agents {
		agentEra := s.Era(agent)
		if agentEra == era.None {
			continue
		}
		st, entries, err := s.Entries(agent)
		if err != nil {
			if len(agents) > 1 {
				s.Warnf(err.Error())
				continue
			}
			return nil, nil, err
		}
		infos := map[string]sessionInfo{}
		cat.sessions[agent] = infos
		// The sessions dir first: most transcripts are <sessionId>.jsonl
		// there, found without resolving each entry's path.
		dir := s.SessionsDir(agent)
		ents, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, apperr.Statef("cannot read sessions dir %s: %v", dir, err)
		}
		inDir := make(map[string]fs.DirEntry, len(ents))
		for _, de := range ents {
			if de.Type().IsRegular() { // never follow a link out of the state dir
				inDir[de.Name()] = de
			}
		}
		claimed := map[string]bool{}
		addFile := func(name, sid string, archived bool) {
			de := inDir[name]
			fi, err := de.Info()
			if err != nil {
				return
			}
			claimed[name] = true
			add(usage.FileUnit(filepath.Join(dir, name), fi, sid, archived), unitInfo{agent: agent, sessionID: sid, archived: archived})
		}
		for _, e := range entries {
			sid := e.Meta.SessionID
			if sid == "" || !s.Listable(e.Key) {
				continue
			}
			row := s.Row(agent, st, e)
			in := sessionInfo{key: row.Key, kind: row.Kind, channel: row.Channel, cron: cronJob(e.Key), visible: s.Visible(e)}
			if prev, ok := infos[sid]; ok && prev.visible && !in.visible {
				continue
			}
			infos[sid] = in
			if agentEra != era.JSON || !in.visible {
				continue
			}
			sf := e.Meta.SessionFile
			if name := sid + ".jsonl"; (sf == "" || filepath.Dir(sf) == dir) && inDir[name] != nil && (sf == "" || filepath.Base(sf) == name) {
				addFile(name, sid, false)
				continue
			}
			tr, err := s.Transcript(agent, st, e)
			if err != nil || !tr.Exists {
				continue
			}
			if filepath.Dir(tr.Path) == dir {
				claimed[filepath.Base(tr.Path)] = true
			}
			if fi, err := os.Stat(tr.Path); err == nil && fi.Mode().IsRegular() {
				add(usage.FileUnit(tr.Path, fi, sid, false), unitInfo{agent: agent, sessionID: sid})
			}
		}
		if agentEra == era.SQLite {
			p := s.SQLitePath(agent)
			fi, err := os.Stat(p)
			if err != nil {
				return nil, nil, apperr.Statef("cannot read OpenClaw SQLite store %s: %v", p, err)
			}
			add(usage.SQLiteUnit(p, fi, o.IncludeArchived, sqlitestore.Options{BusyTimeout: o.f.Flags.LockTimeout, Warn: s.Warnf}), unitInfo{agent: agent})
		}
		names := make([]string, 0, len(inDir))
		for name := range inDir {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if claimed[name] {
				continue
			}
			var sid string
			archived := false
			switch {
			case agentEra == era.JSON && strings.HasSuffix(name, ".jsonl"):
				sid = strings.TrimSuffix(name, ".jsonl")
			case o.IncludeArchived && archiveRe.MatchString(name):
				sid = archiveRe.FindStringSubmatch(name)[1]
				archived = true
			default:
				continue
			}
			if in, known := infos[sid]; s.Req.Restrict && (!known || !in.visible) {
				continue // a sandboxed requester counts only what it may see
			}
			addFile(name, sid, archived)
		}
	}
	return units, cat, nil
}

// sources attaches each part to its session (key, kind, channel, cron job
// from the store), leaving out what the requester may not see, and sums the
// skipped lines.
func (c *catalog) sources(s *state.State, units []usage.Unit, parts [][]usage.Part) ([]usage.Source, usage.Skips, int) {
	var srcs []usage.Source
	var sk usage.Skips
	files := 0
	for i, ps := range parts {
		ui := c.units[i]
		var fileSkips usage.Skips
		for _, p := range ps {
			fileSkips.Add(p.Skips)
			if p.SessionID == "" && len(p.Records) == 0 {
				continue
			}
			in, known := c.sessions[ui.agent][p.SessionID]
			if known && !in.visible || !known && s.Req.Restrict {
				continue
			}
			sess := usage.Session{SessionID: p.SessionID, Agent: ui.agent, Archived: ui.archived || p.Archived}
			switch {
			case known:
				sess.Key, sess.Kind, sess.Channel, sess.CronJob = in.key, in.kind, in.channel, in.cron
			case p.Key != "":
				row := keyInfo(s, p.Key)
				sess.Key, sess.Kind, sess.Channel, sess.CronJob = row.key, row.kind, row.channel, row.cron
			}
			srcs = append(srcs, usage.Source{Session: sess, Models: p.Models, Records: p.Records})
		}
		if fileSkips.Total() > 0 {
			files++
			sk.Add(fileSkips)
		}
	}
	return srcs, sk, files
}

// keyInfo describes a key no store entry holds any more (a 2026.8+ archive).
func keyInfo(s *state.State, key string) sessionInfo {
	kind := keys.Kind(key, "")
	return sessionInfo{
		key:     s.DisplayKey(key),
		kind:    kind,
		channel: keys.Channel(kind, key, "", "", ""),
		cron:    cronJob(key),
	}
}

// cronJob is the job id of a cron session key (agent:<id>:cron:<jobId>, also
// …:cron:<jobId>:run:<runId>), "" for any other key.
func cronJob(key string) string {
	rest := keys.Rest(key)
	if !strings.HasPrefix(rest, "cron:") {
		return ""
	}
	job := strings.TrimPrefix(rest, "cron:")
	if i := strings.IndexByte(job, ':'); i >= 0 {
		job = job[:i]
	}
	return job
}

// pricer looks a model's configured cost up in openclaw.json.
func pricer(cfg *config.Config) usage.Pricer {
	return func(provider, model string) (usage.Price, bool) {
		p, ok := cfg.Models.Providers[provider]
		if !ok {
			return usage.Price{}, false
		}
		for _, m := range p.Models {
			if m.ID == model && m.Cost != nil {
				return usage.Price{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite}, true
			}
		}
		return usage.Price{}, false
	}
}
