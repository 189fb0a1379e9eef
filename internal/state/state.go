// Package state ties the state dir, the config, the stores and the policies
// together for one invocation: who is asking, which agents and sessions they
// may see, and which session a reference names.
package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/storecache"
	"github.com/openclaw/sessions/internal/transcript"
)

// Options are the global flags and environment that locate the state and
// name the requester.
type Options struct {
	StateDir   string // --state-dir
	ConfigPath string // --config
	Profile    string // --profile
	Agent      string // --agent
	As         string // --as or OPENCLAW_SESSION_KEY
	Sandboxed  bool   // --sandboxed or OPENCLAW_SANDBOXED=1
	Env        config.Env
	Warn       func(string)
	// Cache keeps parsed stores across the States of one process (a
	// server's calls); nil reads every store afresh.
	Cache *storecache.Cache
}

// Requester is who is asking (CONTRACT §3).
type Requester struct {
	Raw       string // as given; "" for the host operator
	Key       string // canonical key
	Agent     string // requester agent id
	Sandboxed bool
	Restrict  bool // sees only sessions it spawned
	Subagent  bool
}

// Operator reports whether the caller is the host operator (no --as).
func (r Requester) Operator() bool { return r.Key == "" }

// State is the resolved state of one invocation.
type State struct {
	Dir config.StateDir
	Cfg *config.Config
	Env config.Env
	// Access: the requester and the policies of the local config (Default
	// is the default agent id).
	Access
	Resolver *store.Resolver
	// AgentFlag is --agent (normalised), "" when not given.
	AgentFlag string

	warn   func(string)
	cache  *storecache.Cache
	stores map[string]*store.Store
	// listings read lazily (Listing), of stores not in stores
	listings map[string]*store.Listing
	dbs      map[string]*sqlitestore.DB // by agent, SQLite-era agents
	eras     map[string]era.Era
	// transcriptDir is the sessions dir of the agent Transcript last
	// resolved for
	transcriptDir struct{ agent, dir string }
}

// Open resolves the state dir and config and identifies the requester.
func Open(o Options) (*State, error) {
	if o.Env.Getenv == nil {
		o.Env = config.OSEnv()
	}
	sd := config.ResolveStateDir(o.StateDir, o.Profile, o.Env)
	st, err := os.Stat(sd.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, apperr.Statef("state dir %s does not exist (from %s); set --state-dir or OPENCLAW_STATE_DIR", sd.Path, sd.Source)
	case err != nil:
		return nil, apperr.Statef("cannot read state dir %s: %v", sd.Path, err)
	case !st.IsDir():
		return nil, apperr.Statef("state dir %s is not a directory", sd.Path)
	}
	cfgPath, _ := config.ResolveConfigPath(o.ConfigPath, o.Profile, sd, o.Env)
	if err := checkStateDir(sd.Path, o); err != nil {
		return nil, err
	}
	cfg, err := config.Load(cfgPath, o.Env)
	if err != nil {
		return nil, err
	}
	s := &State{
		Dir: sd, Cfg: cfg, Env: o.Env,
		Resolver: store.NewResolver(sd.Path),
		warn:     o.Warn,
		cache:    o.Cache,
		stores:   map[string]*store.Store{},
		listings: map[string]*store.Listing{},
		dbs:      map[string]*sqlitestore.DB{},
		eras:     map[string]era.Era{},
	}
	if s.warn == nil {
		s.warn = func(string) {}
	}
	agent := ""
	if strings.TrimSpace(o.Agent) != "" {
		agent = config.NormalizeAgentID(o.Agent)
	}
	s.Access = NewAccess(cfg, o.As, agent, o.Sandboxed)
	// a requester never reads a transcript with a second name: it may lie
	// outside the state dir, where no path check sees it
	s.Resolver.SingleLink = !s.Req.Operator()
	if agent != "" {
		s.AgentFlag = agent
		if err := s.CheckAgent(s.AgentFlag); err != nil {
			return nil, err
		}
	}
	if s.Req.Raw != "" {
		if err := s.checkRequester(); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// checkStateDir refuses (exit 10) a directory that is not an OpenClaw state
// dir: one with neither an agents/ directory nor a config file. A fresh
// install (a config, no agent yet) is one; so is any dir when the config was
// named explicitly (--config, $OPENCLAW_CONFIG_PATH) and exists.
func checkStateDir(dir string, o Options) error {
	if fi, err := os.Stat(filepath.Join(dir, "agents")); err == nil && fi.IsDir() {
		return nil
	}
	for _, name := range config.ConfigFileNames {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() {
			return nil
		}
	}
	explicit := strings.TrimSpace(o.ConfigPath)
	if explicit == "" {
		explicit = strings.TrimSpace(o.Env.Getenv("OPENCLAW_CONFIG_PATH"))
	}
	if explicit != "" {
		if fi, err := os.Stat(config.ResolveUserPath(explicit, o.Env)); err == nil && !fi.IsDir() {
			return nil
		}
	}
	return apperr.Statef("%s is not an OpenClaw state dir: it has neither an agents/ directory nor a config file (%s); set --state-dir or OPENCLAW_STATE_DIR",
		dir, strings.Join(config.ConfigFileNames, ", "))
}

// KnownAgent reports whether id is an agent of this state: configured,
// the default one, or present under <state>/agents/.
func (s *State) KnownAgent(id string) bool {
	if id == s.Default || s.Cfg.Agent(id) != nil {
		return true
	}
	for _, a := range s.AgentIDs() {
		if a == id {
			return true
		}
	}
	return false
}

// CheckAgent refuses an unknown agent id (exit 4), naming the known ones:
// a typo must not read as an agent without sessions.
func (s *State) CheckAgent(id string) error {
	if s.KnownAgent(id) {
		return nil
	}
	return apperr.NotFoundf("unknown agent %q (agents: %s)", id, strings.Join(s.AgentIDs(), ", "))
}

// checkRequester refuses (exit 4) a requester key that names no session:
// an unknown agent, or a key absent from its agent's store. An agent's main
// session (agent:<id>:main, or the literal main) is accepted before it
// exists, as OpenClaw creates it on first use.
func (s *State) checkRequester() error {
	r := s.Req
	if err := s.CheckAgent(r.Agent); err != nil {
		return apperr.NotFoundf("--as %s: %v", r.Raw, err)
	}
	if r.Key == keys.MainOf(r.Agent) || strings.EqualFold(r.Raw, "main") {
		return nil
	}
	st, err := s.Store(r.Agent)
	if err != nil {
		return err
	}
	for _, k := range keys.Candidates(r.Raw, r.Agent, s.Default, config.NormalizeAgentID) {
		if _, ok := st.Lookup(k); ok {
			return nil
		}
	}
	return apperr.NotFoundf("--as %s: no such session in agent %s (a requester is an existing session key, or agent:<id>:main)", r.Raw, r.Agent)
}

// Warnf reports a warning on stderr (through the logger).
func (s *State) Warnf(msg string) { s.warn(msg) }

// GlobalScope reports session.scope == "global".
func (s *State) GlobalScope() bool { return strings.EqualFold(s.Cfg.Session.Scope, "global") }

// AgentIDs lists every known agent: the configured ones (default first as
// configured order has it) plus any directory under <state>/agents/.
func (s *State) AgentIDs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, id := range s.Cfg.AgentIDs() {
		add(id)
	}
	if ents, err := fsutil.ReadDir(filepath.Join(s.Dir.Path, "agents")); err == nil {
		var extra []string
		for _, e := range ents {
			if e.IsDir() {
				extra = append(extra, config.NormalizeAgentID(e.Name()))
			}
		}
		sort.Strings(extra)
		for _, id := range extra {
			add(id)
		}
	}
	return out
}

// SessionsDir is the per-agent default sessions dir.
func (s *State) SessionsDir(agent string) string {
	return filepath.Join(s.Dir.Path, "agents", agent, "sessions")
}

// SQLitePath is where OpenClaw 2026.8+ keeps an agent's sessions.
func (s *State) SQLitePath(agent string) string {
	return sqlitestore.Path(s.Dir.Path, agent)
}

// StorePath is the sessions.json of an agent and whether it is shared by all
// agents (a non-templated session.store).
func (s *State) StorePath(agent string) (string, bool) {
	return s.Cfg.StorePath(s.Dir.Path, agent, s.Env)
}

// Era tells which store an agent's sessions are read from: "json"
// (sessions.json, OpenClaw 2026.7 and earlier), "sqlite" (the per-agent
// SQLite store of 2026.8+) or "none". On a half-migrated host (both present)
// the choice and its reason are logged once (sqlitestore.Detect).
func (s *State) Era(agent string) era.Era {
	if e, ok := s.eras[agent]; ok {
		return e
	}
	p, _ := s.StorePath(agent)
	e, why := sqlitestore.Detect(s.Dir.Path, agent, p)
	if _, err := os.Stat(p); err == nil {
		if _, err := os.Stat(s.SQLitePath(agent)); err == nil {
			s.warn("agent " + agent + " has both stores; reading the " + e.String() + " one: " + why)
		}
	}
	s.eras[agent] = e
	return e
}

// CheckWritable refuses (exit 10) any write through sessions.json for an
// agent whose sessions live in OpenClaw 2026.8+'s SQLite store: OpenClaw no
// longer reads sessions.json there, and a legacy file would stop its gateway
// from starting. The lifecycle commands (delete, reset, prune) use it; send,
// spawn and patch write the SQLite store through internal/sessionwrite and
// check sessionwrite.CheckWritable instead.
func (s *State) CheckWritable(agent string) error {
	if _, err := os.Stat(s.SQLitePath(agent)); err == nil {
		return apperr.Statef("agent %s keeps its sessions in the OpenClaw 2026.8+ SQLite store %s; sessions cannot write there (use OpenClaw's own tools)", agent, s.SQLitePath(agent))
	}
	return nil
}

// IsSQLite reports whether a loaded store is a SQLite-era store.
func IsSQLite(st *store.Store) bool {
	return st != nil && filepath.Base(st.Path) == sqlitestore.FileName
}

// Store loads (once) the store of an agent, of either era. A missing store
// is an empty store.
func (s *State) Store(agent string) (*store.Store, error) {
	st, _, err := s.load(agent, false)
	return st, err
}

// Listing is what a listing reads of an agent's store (store.Listing): the
// store's entries that belong to that agent (as Entries), each whole entry
// read when asked for. A store this state has loaded is listed as loaded;
// otherwise the store cache may decode from its disk tier only the entries
// the listing asks for.
func (s *State) Listing(agent string) (*store.Listing, error) {
	st, l, err := s.load(agent, true)
	if err != nil {
		return nil, err
	}
	if l == nil {
		l = store.ListingOf(st)
	}
	if _, shared := s.StorePath(agent); shared {
		var mine []bool
		l.Scan(func(_ int, key, _ string) {
			mine = append(mine, keys.AgentOf(key, s.Default, config.NormalizeAgentID) == agent)
		})
		l = l.Select(func(i int) bool { return mine[i] })
	}
	return l, nil
}

// load is Store, or with listing, Listing's listing (nil when the store was
// loaded whole: st).
func (s *State) load(agent string, listing bool) (*store.Store, *store.Listing, error) {
	if s.Era(agent) == era.SQLite {
		p := s.SQLitePath(agent)
		if st, ok := s.stores[p]; ok {
			return st, nil, nil
		}
		if l, ok := s.listings[p]; ok && listing {
			return nil, l, nil
		}
		// the store's warnings go to the cache while it reads (to be said
		// again whenever it serves what it kept), to s.warn otherwise
		warn := s.warn
		open := func() (*sqlitestore.DB, error) {
			return sqlitestore.Open(p, sqlitestore.Options{Warn: func(msg string) { warn(msg) }})
		}
		// keys and fields only, as LoadMeta below; what is committed lies in
		// the database file and its -wal
		files := []string{p, p + "-wal"}
		if listing {
			// the database is opened (its schema read and checked) only when
			// the store is read: a listing served from the cache, of exactly
			// the files a read checked, needs it only for messages (SQLiteDB
			// opens it then)
			var db *sqlitestore.DB
			l, err := s.cache.LoadListing(p, files, s.warn, func(w func(string)) (*store.Store, error) {
				warn = w
				defer func() { warn = s.warn }()
				var err error
				if db, err = open(); err != nil {
					return nil, err
				}
				return db.StoreMeta()
			})
			if err != nil {
				if db != nil {
					db.Close()
				}
				return nil, nil, err
			}
			s.keepDB(agent, db)
			s.listings[p] = l
			return nil, l, nil
		}
		db, err := open()
		if err != nil {
			return nil, nil, err
		}
		st, err := s.cache.Load(p, files, s.warn, func(w func(string)) (*store.Store, error) {
			warn = w
			defer func() { warn = s.warn }()
			return db.StoreMeta()
		})
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		s.keepDB(agent, db)
		s.stores[p] = st
		return st, nil, nil
	}
	p, _ := s.StorePath(agent)
	if st, ok := s.stores[p]; ok {
		return st, nil, nil
	}
	if l, ok := s.listings[p]; ok && listing {
		return nil, l, nil
	}
	read := func(func(string)) (*store.Store, error) {
		return store.LoadMeta(p) // keys and fields only: nothing here reads Raw
	}
	if listing {
		l, err := s.cache.LoadListing(p, []string{p}, s.warn, read)
		if err != nil {
			return nil, nil, err
		}
		if l.St.JSON5 {
			s.warn("session store " + p + " is JSON5, not strict JSON (read as OpenClaw does)")
		}
		s.listings[p] = l
		return nil, l, nil
	}
	st, err := s.cache.Load(p, []string{p}, s.warn, read)
	if err != nil {
		return nil, nil, err
	}
	if st.JSON5 {
		s.warn("session store " + p + " is JSON5, not strict JSON (read as OpenClaw does)")
	}
	s.stores[p] = st
	return st, nil, nil
}

// keepDB keeps db as agent's open SQLite store, unless one is kept already
// (then db, nil or not, is closed).
func (s *State) keepDB(agent string, db *sqlitestore.DB) {
	switch {
	case db == nil:
	case s.dbs[agent] == nil:
		s.dbs[agent] = db
	default:
		db.Close()
	}
}

// SQLiteDB is the open SQLite store of a SQLite-era agent (after Store or
// Listing). A listing served from the store cache did not open it: it is
// opened now (nil, and a warning, when that fails: the store went or
// changed since). Not for concurrent use.
func (s *State) SQLiteDB(agent string) *sqlitestore.DB {
	if db := s.dbs[agent]; db != nil {
		return db
	}
	if _, ok := s.listings[s.SQLitePath(agent)]; ok && s.Era(agent) == era.SQLite {
		db, err := sqlitestore.Open(s.SQLitePath(agent), sqlitestore.Options{Warn: s.warn})
		if err != nil {
			s.warn(err.Error())
			return nil
		}
		s.dbs[agent] = db
	}
	return s.dbs[agent]
}

// Close releases the SQLite handles.
func (s *State) Close() {
	for a, db := range s.dbs {
		db.Close()
		delete(s.dbs, a)
	}
}

// SQLiteMessages reads the messages of a session of a SQLite-era agent
// (OpenClaw 2026.8+: the transcript is the store's events, there is no
// file); a session without events gives no messages.
func (s *State) SQLiteMessages(agent string, e *store.Entry, opts transcript.Options) (*transcript.Result, error) {
	db := s.SQLiteDB(agent)
	if db == nil {
		return nil, apperr.Statef("no SQLite store open for agent %s", agent)
	}
	res, err := db.Messages(e.SessionID, opts)
	if errors.Is(err, fs.ErrNotExist) {
		return &transcript.Result{Messages: []json.RawMessage{}}, nil
	}
	return res, err
}

// Entries returns the entries of an agent's store that belong to that agent
// (all of them unless the store is shared by every agent).
func (s *State) Entries(agent string) (*store.Store, []*store.Entry, error) {
	st, err := s.Store(agent)
	if err != nil {
		return nil, nil, err
	}
	_, shared := s.StorePath(agent)
	out := make([]*store.Entry, 0, len(st.Entries))
	for i := range st.Entries {
		e := &st.Entries[i]
		if shared && keys.AgentOf(e.Key, s.Default, config.NormalizeAgentID) != agent {
			continue
		}
		out = append(out, e)
	}
	return st, out, nil
}

// AgentsInScope picks the agents a listing reads (CONTRACT §3): --agent
// (refused when the requester may not see it), else the requester's own
// agent for the operator without all, else every agent the requester may
// see.
func (s *State) AgentsInScope(all bool) ([]string, error) {
	if s.AgentFlag != "" {
		if msg := s.CanSeeAgent(s.AgentFlag, policy.OpHistory); msg != "" {
			return nil, apperr.Forbiddenf("%s", msg)
		}
		return []string{s.AgentFlag}, nil
	}
	if s.Req.Operator() && !all {
		return []string{s.Req.Agent}, nil
	}
	var out []string
	for _, a := range s.AgentIDs() {
		if s.CanSeeAgent(a, policy.OpHistory) == "" {
			out = append(out, a)
		}
	}
	return out, nil
}

// Visible reports whether an entry passes the sandbox restriction.
func (s *State) Visible(e *store.Entry) bool { return s.SeesSpawnedBy(e.SpawnedBy) }

// DisplayKey is the key as shown to the requester.
func (s *State) DisplayKey(key string) string {
	return keys.Display(key, s.Req.Agent, s.GlobalScope())
}

// EntryRaw is an entry's JSON exactly as stored, for the few readers that
// need more than Meta: Store keeps keys and fields only (both eras), so the
// one row is read again — by key from a SQLite store (a single-row query),
// from a sessions.json by loading it in full. ok is false when the session
// is gone (removed while reading).
func (s *State) EntryRaw(agent string, e *store.Entry) (json.RawMessage, bool, error) {
	if len(e.Raw) > 0 {
		return e.Raw, true, nil
	}
	if s.Era(agent) == era.SQLite {
		db := s.SQLiteDB(agent)
		if db == nil {
			return nil, false, apperr.Statef("no SQLite store open for agent %s", agent)
		}
		raw, ok, err := db.EntryRaw(e.Key)
		return raw, ok, err
	}
	p, _ := s.StorePath(agent)
	st, err := store.Load(p)
	if err != nil {
		return nil, false, err
	}
	if full, ok := st.Lookup(e.Key); ok && len(full.Raw) > 0 {
		return full.Raw, true, nil
	}
	return nil, false, nil
}
