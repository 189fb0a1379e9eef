package gateway

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/proc"
)

// LiveGateway is a gateway found running for a state dir.
type LiveGateway struct {
	PID      int    `json:"pid,omitempty"`
	Port     int    `json:"port,omitempty"`
	LockPath string `json:"lockPath,omitempty"`
	Via      string `json:"via"` // "lock" (a lock file naming a live pid) or "port" (the port answers)
}

// DetectInput says where to look.
type DetectInput struct {
	StateDir   string
	ConfigPath string // the config the gateway was started with (1.30's lock name hashes it)
	Port       int    // the configured port; 0: do not probe
	// TmpDir is 2026.1.30's os.tmpdir() ("" = os.TempDir()).
	TmpDir string
	// ProbeTimeout bounds the port probe (default 300ms).
	ProbeTimeout time.Duration
}

// GatewayLockPaths are the lock files a running gateway holds for a state
// dir: 2026.9's <state>/tmp/openclaw-<uid>/gateway.state.lock, and
// 2026.1.30's <tmpdir>/openclaw-<uid>/gateway.<sha1(configPath)[:8]>.lock.
func GatewayLockPaths(in DetectInput) []string {
	sub := "openclaw-" + strconv.Itoa(os.Getuid())
	paths := []string{filepath.Join(in.StateDir, "tmp", sub, "gateway.state.lock")}
	if in.ConfigPath != "" {
		tmp := in.TmpDir
		if tmp == "" {
			tmp = os.TempDir()
		}
		sum := sha1.Sum([]byte(in.ConfigPath))
		paths = append(paths, filepath.Join(tmp, sub, "gateway."+hex.EncodeToString(sum[:])[:8]+".lock"))
	}
	return paths
}

// DetectLocal reports a gateway live for the state dir: a lock file naming a
// live process (checked against its recorded start time, so a reused pid
// does not count), else the configured port accepting a connection on
// 127.0.0.1. nil: none found.
func DetectLocal(in DetectInput) *LiveGateway {
	for _, p := range GatewayLockPaths(in) {
		l, err := readGatewayLock(p)
		// 2026.9 writes the same lock for non-gateway owners of the state
		// dir (role agent-embedded: `openclaw agent --local`; doctor's
		// sqlite-maintenance; skill-workshop-apply): those serve no RPC, and
		// OpenClaw's own readVerifiedGatewayLockIdentity skips them too.
		if err != nil || l.PID <= 0 || l.Role != "" && l.Role != "gateway" {
			continue
		}
		if !pidAlive(l.PID, l.StartTime) {
			continue
		}
		port := l.Port
		if port == 0 {
			port = in.Port
		}
		return &LiveGateway{PID: l.PID, Port: port, LockPath: p, Via: "lock"}
	}
	if in.Port > 0 {
		to := in.ProbeTimeout
		if to <= 0 {
			to = 300 * time.Millisecond
		}
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(in.Port)), to)
		if err == nil {
			conn.Close()
			return &LiveGateway{Port: in.Port, Via: "port"}
		}
	}
	return nil
}

type gatewayLock struct {
	PID       int    `json:"pid"`
	Port      int    `json:"port"`
	Role      string `json:"role"` // 2026.9: absent or "gateway" for a gateway
	StateDir  string `json:"stateDir"`
	StartTime int64  `json:"startTime"` // /proc/<pid>/stat field 22, when recorded
}

// readGatewayLock reads the JSON object at the start of a lock file (2026.9
// pads the file after it).
func readGatewayLock(path string) (gatewayLock, error) {
	var l gatewayLock
	data, err := fsutil.ReadFileRegular(path)
	if err != nil {
		return l, err
	}
	if len(data) > 1<<16 {
		data = data[:1<<16]
	}
	err = json.NewDecoder(bytes.NewReader(data)).Decode(&l)
	return l, err
}

func pidAlive(pid int, startTime int64) bool {
	if !proc.Exists(pid) {
		return false
	}
	if startTime <= 0 {
		return true
	}
	st, ok := procStartTime(pid)
	return !ok || st == startTime
}

// procStartTime reads field 22 of /proc/<pid>/stat (false off Linux: there
// the pid alone decides).
func procStartTime(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: fields resume after ")".
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3; field 22 is fields[19].
	if len(fields) < 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(fields[19], 10, 64)
	return v, err == nil
}
