package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/lazyre"
)

// GatewaysDirName is the directory, under the user state dir, that holds
// the run records of the runs made through a named gateway.
const GatewaysDirName = "gateways"

// UserStateDir is $XDG_STATE_HOME/sessions, else ~/.local/state/sessions.
func UserStateDir(getenv func(string) string) (string, error) {
	if d := strings.TrimSpace(getenv("XDG_STATE_HOME")); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "sessions"), nil
	}
	home := strings.TrimSpace(getenv("HOME"))
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", apperr.Statef("no home directory for the run records of a gateway: %v (set XDG_STATE_HOME)", err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "sessions"), nil
}

var unsafeName = lazyre.New(`[^A-Za-z0-9._-]+`)

// GatewayHomeName is the directory name of a gateway's home: its host and
// port (readable) and a hash of the URL without credentials, query or
// fragment (so `--context prod` and `--gateway <prod's URL>` share it).
func GatewayHomeName(rawURL string) string {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" {
		sum := sha256.Sum256([]byte(rawURL))
		return "gateway-" + hex.EncodeToString(sum[:6])
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	u.Host = strings.ToLower(u.Host)
	u.Path = strings.TrimSuffix(u.Path, "/")
	sum := sha256.Sum256([]byte(u.String()))
	return unsafeName.ReplaceAllString(u.Hostname(), "_") + "-" + u.Port() + "-" + hex.EncodeToString(sum[:6])
}

// GatewayHome is where the runs made through the gateway at rawURL keep
// their records, outbox and locks, on this machine: a directory laid out
// like a state dir (<home>/sessions-cli/runs/…, Open(home)) with an empty
// config of its own (openclaw.json "{}"), so the detached runner opens it
// with --state-dir and reads no other config. create: make it (mode 0700)
// when missing; otherwise a missing home is returned as is (no runs yet).
func GatewayHome(getenv func(string) string, rawURL string, create bool) (string, error) {
	base, err := UserStateDir(getenv)
	if err != nil {
		return "", err
	}
	home := filepath.Join(base, GatewaysDirName, GatewayHomeName(rawURL))
	if !create {
		return home, nil
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", apperr.Statef("cannot create %s: %v", home, err)
	}
	cfg := filepath.Join(home, "openclaw.json")
	if _, err := os.Stat(cfg); errors.Is(err, fs.ErrNotExist) {
		if err := fsutil.WriteFileAtomic(cfg, []byte("{}\n"), 0o600); err != nil {
			return "", apperr.Statef("cannot write %s: %v", cfg, err)
		}
	}
	return home, nil
}
