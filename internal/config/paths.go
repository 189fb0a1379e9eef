package config

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/lazyre"
)

// Directory and file names (format §1.1, §1.2).
const (
	StateDirName      = ".openclaw"
	ConfigFileName    = "openclaw.json"
	DefaultProfile    = "default"
	sourceDefault     = "default"
	sourceFlag        = "--state-dir"
	sourceProfile     = "--profile"
	envStateDir       = "OPENCLAW_STATE_DIR"
	envLegacyStateDir = "CLAWDBOT_STATE_DIR"
	envConfigPath     = "OPENCLAW_CONFIG_PATH"
	envLegacyConfig   = "CLAWDBOT_CONFIG_PATH"
)

// LegacyStateDirNames are the pre-OpenClaw state directories under $HOME, in
// the order OpenClaw probes them (dist/config/paths.js:15).
var LegacyStateDirNames = []string{".clawdbot", ".moltbot", ".moldbot"}

// ConfigFileNames are the config file names probed in every candidate
// directory, in order (dist/config/paths.js:17-18).
var ConfigFileNames = []string{"openclaw.json", "clawdbot.json", "moltbot.json", "moldbot.json"}

// StateDir is a resolved state directory.
type StateDir struct {
	Path string // absolute
	// Explicit reports whether the directory was chosen by --state-dir, an
	// environment variable or --profile (it then heads the config candidates).
	Explicit bool
	// Source names where Path came from: "--state-dir", "OPENCLAW_STATE_DIR",
	// "CLAWDBOT_STATE_DIR", "--profile", "default" or "legacy ~/.clawdbot"
	// (".moltbot", ".moldbot").
	Source string
}

// ResolveStateDir resolves the state directory (format §1.1, CONTRACT §2):
//
//	--state-dir > OPENCLAW_STATE_DIR > --profile > CLAWDBOT_STATE_DIR
//	> $HOME/.openclaw if it exists > first existing $HOME/.clawdbot, .moltbot, .moldbot
//	> $HOME/.openclaw
//
// OpenClaw's --profile fills OPENCLAW_STATE_DIR only when it is unset, and
// OpenClaw reads OPENCLAW_STATE_DIR before CLAWDBOT_STATE_DIR, so a profile
// beats CLAWDBOT_STATE_DIR but not OPENCLAW_STATE_DIR. --profile NAME means
// $HOME/.openclaw-NAME ("default", any case, means $HOME/.openclaw).
func ResolveStateDir(flagDir, profile string, env Env) StateDir {
	if p := jsTrim(flagDir); p != "" {
		return StateDir{Path: ResolveUserPath(p, env), Explicit: true, Source: sourceFlag}
	}
	if p := env.trimmed(envStateDir); p != "" {
		return StateDir{Path: ResolveUserPath(p, env), Explicit: true, Source: envStateDir}
	}
	if prof := jsTrim(profile); prof != "" {
		return StateDir{Path: ProfileStateDir(prof, env), Explicit: true, Source: sourceProfile}
	}
	if p := env.trimmed(envLegacyStateDir); p != "" {
		return StateDir{Path: ResolveUserPath(p, env), Explicit: true, Source: envLegacyStateDir}
	}
	home := env.home()
	newDir := filepath.Join(home, StateDirName)
	if pathExists(newDir) {
		return StateDir{Path: newDir, Source: sourceDefault}
	}
	for _, name := range LegacyStateDirNames {
		dir := filepath.Join(home, name)
		if pathExists(dir) {
			return StateDir{Path: dir, Source: "legacy ~/" + name}
		}
	}
	return StateDir{Path: newDir, Source: sourceDefault}
}

// ProfileStateDir is the state dir of a --profile: $HOME/.openclaw-NAME, or
// $HOME/.openclaw for "default" (case-insensitive).
func ProfileStateDir(profile string, env Env) string {
	prof := jsTrim(profile)
	if prof == "" || strings.EqualFold(prof, DefaultProfile) {
		return filepath.Join(env.home(), StateDirName)
	}
	return filepath.Join(env.home(), StateDirName+"-"+prof)
}

var profileNameRE = lazyre.New(`^[A-Za-z0-9_-]+$`)

// ValidateProfile checks a --profile value the way the OpenClaw CLI does
// (letters, digits, "_" and "-" only) and returns a usage error otherwise.
// An empty profile is valid (no profile).
func ValidateProfile(profile string) error {
	p := jsTrim(profile)
	if p == "" || profileNameRE.MatchString(p) {
		return nil
	}
	return apperr.Usagef(`invalid --profile %q (use letters, numbers, "_", "-" only)`, profile)
}

// ResolveConfigPath returns the config file to load and whether it exists
// (format §1.2):
//
//  1. --config (only that path, even if missing);
//  2. OPENCLAW_CONFIG_PATH (same);
//  3. with a profile: <state dir>/openclaw.json, where the state dir is
//     --state-dir / OPENCLAW_STATE_DIR when given, else the profile's dir
//     (OpenClaw's --profile fills OPENCLAW_CONFIG_PATH only when unset);
//  4. CLAWDBOT_CONFIG_PATH (only that path);
//  5. the first existing of: when the state dir is explicit,
//     <dir>/{openclaw,clawdbot,moltbot,moldbot}.json; then the same four names
//     in $HOME/.openclaw, .clawdbot, .moltbot, .moldbot — so with an explicit
//     state dir holding no config, ~/.openclaw/openclaw.json is still used;
//  6. else <state dir>/openclaw.json.
func ResolveConfigPath(flagPath, profile string, sd StateDir, env Env) (path string, exists bool) {
	single := func(p string) (string, bool) {
		rp := ResolveUserPath(p, env)
		return rp, pathExists(rp)
	}
	if p := jsTrim(flagPath); p != "" {
		return single(p)
	}
	if p := env.trimmed(envConfigPath); p != "" {
		return single(p)
	}
	if prof := jsTrim(profile); prof != "" {
		dir := ProfileStateDir(prof, env)
		if (sd.Source == sourceFlag || sd.Source == envStateDir) && sd.Path != "" {
			dir = sd.Path
		}
		return single(filepath.Join(dir, ConfigFileName))
	}
	if p := env.trimmed(envLegacyConfig); p != "" {
		return single(p)
	}
	for _, c := range ConfigCandidates(sd, env) {
		if pathExists(c) {
			return c, true
		}
	}
	return filepath.Join(sd.Path, ConfigFileName), false
}

// ConfigCandidates lists the config files probed when no config path is
// given (resolveDefaultConfigCandidates, paths.js:144-162).
func ConfigCandidates(sd StateDir, env Env) []string {
	var dirs []string
	if sd.Explicit && sd.Path != "" {
		dirs = append(dirs, sd.Path)
	}
	home := env.home()
	dirs = append(dirs, filepath.Join(home, StateDirName))
	for _, name := range LegacyStateDirNames {
		dirs = append(dirs, filepath.Join(home, name))
	}
	var out []string
	for _, d := range dirs {
		for _, f := range ConfigFileNames {
			out = append(out, filepath.Join(d, f))
		}
	}
	return out
}

// pathExists is fs.existsSync: true for any existing file or directory (a
// directory named openclaw.json "exists" for OpenClaw too, then fails to load).
func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
