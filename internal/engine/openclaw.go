package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/lazyre"
)

// APIOpenClaw is the "api" a turn of the openclaw engine is recorded with in
// run steps (OpenClaw writes its own messages with the provider's api).
const APIOpenClaw = "openclaw"

// OpenClaw is the "openclaw" engine: a real OpenClaw turn without a gateway,
// `openclaw agent --local --json` on the target session, with this
// invocation's state dir and config (OPENCLAW_STATE_DIR,
// OPENCLAW_CONFIG_PATH). OpenClaw runs the agent with its own system prompt,
// tools, compaction and transcript/store writes, so the turn is complete in
// the transcript and the store when the command ends: Result.WroteTranscript
// and Result.WroteStore are set and the runner writes nothing.
//
// Flags differ by version: 2026.1.x has no --session-key, so the session is
// named by --agent and --session-id; 2026.2 and later take --session-key
// (and --message-file for a message over MaxArgMessage). The step's context
// (ExtraSystemPrompt) cannot be passed to the CLI; it goes before the
// message, separated by a blank line.
type OpenClaw struct {
	Bin      string // the openclaw executable (absolute)
	Config   *config.Config
	StateDir string // OPENCLAW_STATE_DIR ("" = inherited)
	// Version is the executable's version ("2026.1.30"); "" means detect
	// (package.json beside the resolved executable, else `openclaw
	// --version`, cached in CacheDir).
	Version   string
	CacheDir  string // where the detected version is cached ("" = no cache)
	KillGrace time.Duration
	Now       func() time.Time
}

// MaxArgMessage is the longest message passed as --message; a longer one
// goes through --message-file (2026.2+), or is refused (1.x).
const MaxArgMessage = 64 << 10

// FindOpenClaw locates the openclaw executable: flag (--openclaw PATH),
// else $SESSIONS_OPENCLAW, else `openclaw` on $PATH. It returns "" and the
// reason when there is none.
func FindOpenClaw(flag string, getenv func(string) string) (string, error) {
	for _, c := range []struct{ v, from string }{{flag, "--openclaw"}, {getenv("SESSIONS_OPENCLAW"), "$SESSIONS_OPENCLAW"}} {
		if strings.TrimSpace(c.v) == "" {
			continue
		}
		p, err := exec.LookPath(c.v)
		if err != nil {
			return "", fmt.Errorf("%s %s: not an executable: %w", c.from, c.v, unwrapExecErr(err))
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	path := getenv("PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "openclaw")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, nil
			}
		}
	}
	return "", errors.New("no openclaw executable on $PATH (give --openclaw PATH or $SESSIONS_OPENCLAW)")
}

func unwrapExecErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

var versionRE = lazyre.New(`\b(20\d\d)\.(\d+)\.(\d+)\b`)

// ParseVersion finds "YYYY.M.D" in s (`openclaw --version` output).
func ParseVersion(s string) (string, bool) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[0], true
}

// HasSessionKeyFlag: `openclaw agent --session-key` exists from 2026.2 on
// (2026.1.30 has only --session-id).
func HasSessionKeyFlag(version string) bool {
	m := versionRE.FindStringSubmatch(version)
	if m == nil {
		return true // unknown: assume a current CLI
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	return y > 2026 || (y == 2026 && mo >= 2)
}

// DetectVersion is the version of the openclaw executable bin: the
// package.json of the `openclaw` package the resolved executable lives in,
// else a cached `bin --version` (cacheDir, keyed by path, size and mtime),
// else `bin --version` run now (bounded by 60 s).
func DetectVersion(ctx context.Context, bin, cacheDir string) (string, error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		real = bin
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if v, ok := packageVersion(filepath.Join(dir, "package.json")); ok {
			return v, nil
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", real, fi.Size(), fi.ModTime().UnixNano())
	cache := ""
	if cacheDir != "" {
		cache = filepath.Join(cacheDir, "openclaw-versions.json")
		var m map[string]string
		if b, err := fsutil.ReadFileRegular(cache); err == nil && json.Unmarshal(b, &m) == nil {
			if v := m[key]; v != "" {
				return v, nil
			}
		}
	}
	vctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(vctx, bin, "--version")
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	v, ok := ParseVersion(string(out))
	if !ok {
		return "", fmt.Errorf("%s --version printed no version: %q", bin, tailString(strings.TrimSpace(string(out)), 200))
	}
	if cache != "" {
		m := map[string]string{}
		if b, err := fsutil.ReadFileRegular(cache); err == nil {
			_ = json.Unmarshal(b, &m)
		}
		m[key] = v
		if b, err := json.MarshalIndent(m, "", "  "); err == nil {
			_ = os.MkdirAll(cacheDir, 0o700)
			_ = fsutil.WriteFileAtomic(cache, append(b, '\n'), 0o600)
		}
	}
	return v, nil
}

func packageVersion(path string) (string, bool) {
	b, err := fsutil.ReadFileRegular(path)
	if err != nil {
		return "", false
	}
	var p struct{ Name, Version string }
	if json.Unmarshal(b, &p) != nil || p.Name != "openclaw" {
		return "", false
	}
	return p.Version, p.Version != ""
}

// Args is the `openclaw agent` command line of req for version (without
// the executable); messageFile is where a long message was written ("" if
// none needed).
func (e *OpenClaw) Args(req Request, version string, timeout time.Duration, messageFile string) []string {
	a := []string{"agent", "--local", "--json"}
	if HasSessionKeyFlag(version) {
		a = append(a, "--session-key", req.SessionKey)
	} else {
		a = append(a, "--agent", req.AgentID, "--session-id", req.SessionID)
	}
	if messageFile != "" {
		a = append(a, "--message-file", messageFile)
	} else {
		a = append(a, "--message", openClawMessage(req))
	}
	if timeout > 0 {
		a = append(a, "--timeout", strconv.Itoa(int(math.Ceil(timeout.Seconds()))))
	}
	if th := strings.TrimSpace(req.Thinking); th != "" {
		if th == "xhigh" && !HasSessionKeyFlag(version) {
			th = "high" // 1.30: off | minimal | low | medium | high
		}
		a = append(a, "--thinking", th)
	}
	return a
}

// openClawMessage is the message with the step's context before it.
func openClawMessage(req Request) string {
	if x := strings.TrimSpace(req.ExtraSystemPrompt); x != "" {
		return x + "\n\n" + req.Message
	}
	return req.Message
}

// Turn implements Engine.
func (e *OpenClaw) Turn(ctx context.Context, req Request) (*Result, error) {
	version := e.Version
	if version == "" {
		v, err := DetectVersion(ctx, e.Bin, e.CacheDir)
		if err != nil {
			return nil, fail(ErrExec, "openclaw engine: cannot tell the version of "+e.Bin+": "+err.Error())
		}
		version = v
	}
	timeout := turnTimeout(ctx, e.Config, req.Timeout)
	msgFile := ""
	if msg := openClawMessage(req); len(msg) > MaxArgMessage {
		if !HasSessionKeyFlag(version) {
			return nil, fail(ErrConfig, fmt.Sprintf("openclaw engine: the message is %d bytes; OpenClaw %s takes at most %d KiB on its command line", len(msg), version, MaxArgMessage>>10))
		}
		f, err := os.CreateTemp("", "sessions-openclaw-message-*.txt")
		if err != nil {
			return nil, fail(ErrExec, "openclaw engine: "+err.Error())
		}
		defer os.Remove(f.Name())
		_, werr := f.WriteString(msg)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, fail(ErrExec, "openclaw engine: "+werr.Error())
		}
		msgFile = f.Name()
	}
	env := append([]string{}, req.Env...)
	if e.StateDir != "" {
		env = append(env, "OPENCLAW_STATE_DIR="+e.StateDir)
	}
	if e.Config != nil && e.Config.Path != "" {
		env = append(env, "OPENCLAW_CONFIG_PATH="+e.Config.Path)
	}
	req.Env = env
	x := &Exec{
		Config: e.Config, KillGrace: e.KillGrace, Now: e.Now,
		argv:  append([]string{e.Bin}, e.Args(req, version, timeout, msgFile)...),
		label: "openclaw engine", jsonOnly: true,
	}
	res, err := x.Turn(ctx, req)
	if err != nil {
		return nil, err
	}
	res.API = APIOpenClaw
	res.WroteTranscript = true
	res.WroteStore = true
	return res, nil
}
