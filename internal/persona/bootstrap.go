// Package persona builds the system prompt of a provider-engine turn from
// what OpenClaw puts there for the agent (OpenClaw 2026.1.30
// dist/agents/system-prompt.js, workspace.js, pi-embedded-helpers/bootstrap.js;
// the total budget and the date line from 2026.9.x): the workspace bootstrap
// files in OpenClaw's order with its per-file and total limits and
// truncation markers, the agent's identity, the date and time zone, the
// session's channel and the runtime line — everything that does not need
// OpenClaw's tools. The prompt says plainly that the turn runs no tools.
//
// The package is pure except for LoadFiles, which reads the workspace.
package persona

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/openclaw/sessions/internal/fsutil"
)

// Bootstrap file names, in the order OpenClaw injects them
// (loadWorkspaceBootstrapFiles), MEMORY.md and memory.md last.
const (
	AgentsFile    = "AGENTS.md"
	SoulFile      = "SOUL.md"
	ToolsFile     = "TOOLS.md"
	IdentityFile  = "IDENTITY.md"
	UserFile      = "USER.md"
	HeartbeatFile = "HEARTBEAT.md"
	BootstrapFile = "BOOTSTRAP.md"
	MemoryFile    = "MEMORY.md"
	MemoryAltFile = "memory.md"
)

// Order is OpenClaw's fixed bootstrap order (the memory files follow when
// present).
var Order = []string{AgentsFile, SoulFile, ToolsFile, IdentityFile, UserFile, HeartbeatFile, BootstrapFile}

// Limits (characters are UTF-16 code units, like JavaScript's length).
const (
	// DefaultMaxChars is DEFAULT_BOOTSTRAP_MAX_CHARS
	// (agents.defaults.bootstrapMaxChars).
	DefaultMaxChars = 20_000
	// DefaultTotalMaxChars is 2026.9.x's DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS
	// (agents.defaults.bootstrapTotalMaxChars); 1.30 has no total limit.
	DefaultTotalMaxChars = 60_000
	// minFileBudget is MIN_BOOTSTRAP_FILE_BUDGET_CHARS: below it no further
	// file is injected.
	minFileBudget = 64
	headRatio     = 0.7 // 1.30 BOOTSTRAP_HEAD_RATIO
	tailRatio     = 0.2 // 1.30 BOOTSTRAP_TAIL_RATIO
)

// File is one workspace bootstrap file as loaded.
type File struct {
	Name    string // AGENTS.md …
	Path    string // absolute
	Content string
	Missing bool
}

// ContextFile is a file as injected into "# Project Context".
type ContextFile struct {
	Path      string // the file name, as OpenClaw shows it
	Content   string
	Truncated bool
}

// LoadFiles reads the bootstrap files of workspace dir in OpenClaw's order:
// the seven fixed names (a missing one is kept, marked Missing), then
// MEMORY.md and memory.md when they exist (one entry when both resolve to
// the same file).
func LoadFiles(dir string) []File {
	out := make([]File, 0, len(Order)+2)
	for _, name := range Order {
		p := filepath.Join(dir, name)
		b, err := fsutil.ReadFileRegular(p)
		if err != nil {
			out = append(out, File{Name: name, Path: p, Missing: true})
			continue
		}
		out = append(out, File{Name: name, Path: p, Content: string(b)})
	}
	seen := map[string]bool{}
	for _, name := range []string{MemoryFile, MemoryAltFile} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		key := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			key = r
		}
		if fi, err := os.Stat(p); err == nil {
			// case-insensitive file systems: MEMORY.md and memory.md are one
			for k := range seen {
				if ki, err := os.Stat(k); err == nil && os.SameFile(ki, fi) {
					key = k
				}
			}
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		b, err := fsutil.ReadFileRegular(p)
		if err != nil {
			continue
		}
		out = append(out, File{Name: name, Path: p, Content: string(b)})
	}
	return out
}

// IsSubagentKey reports a sub-agent session key (agent:<id>:subagent:…).
func IsSubagentKey(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	if strings.HasPrefix(k, "subagent:") {
		return true
	}
	parts := strings.SplitN(k, ":", 4)
	return len(parts) >= 3 && parts[0] == "agent" && parts[2] == "subagent"
}

// FilterForSession keeps only AGENTS.md and TOOLS.md for a sub-agent
// session (filterBootstrapFilesForSession).
func FilterForSession(files []File, sessionKey string) []File {
	if !IsSubagentKey(sessionKey) {
		return files
	}
	out := files[:0:0]
	for _, f := range files {
		if f.Name == AgentsFile || f.Name == ToolsFile {
			out = append(out, f)
		}
	}
	return out
}

// ContextFiles applies OpenClaw's limits (buildBootstrapContextFiles): a
// missing file becomes "[MISSING] Expected at: <path>", an empty one is
// dropped, a file longer than maxChars keeps its head (70 %) and tail (20 %)
// around OpenClaw's truncation marker, and all files together stay within
// totalMaxChars (a file that does not fit is cut with "…"; once fewer than
// 64 characters remain no further file is injected). maxChars or
// totalMaxChars ≤ 0 mean the defaults. warn, when not nil, gets OpenClaw's
// warnings.
func ContextFiles(files []File, maxChars, totalMaxChars int, warn func(string)) []ContextFile {
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	if totalMaxChars <= 0 {
		totalMaxChars = max(maxChars, DefaultTotalMaxChars)
	}
	if warn == nil {
		warn = func(string) {}
	}
	remaining := totalMaxChars
	var out []ContextFile
	for _, f := range files {
		if remaining <= 0 {
			break
		}
		if f.Missing {
			s := clampToBudget("[MISSING] Expected at: "+f.Path, remaining)
			if s == "" {
				break
			}
			remaining -= ulen(s)
			out = append(out, ContextFile{Path: f.Name, Content: s})
			continue
		}
		if remaining < minFileBudget {
			warn("remaining bootstrap budget is " + strconv.Itoa(remaining) + " chars (<" + strconv.Itoa(minFileBudget) + "); skipping additional bootstrap files")
			break
		}
		limit := max(1, min(maxChars, remaining))
		content, truncated, orig := Trim(f.Content, f.Name, limit)
		within := clampToBudget(content, remaining)
		if within == "" {
			continue
		}
		if truncated || ulen(within) < ulen(content) {
			warn("workspace bootstrap file " + f.Name + " is " + strconv.Itoa(orig) + " chars (limit " + strconv.Itoa(limit) + "); truncating in injected context")
			truncated = true
		}
		remaining -= ulen(within)
		out = append(out, ContextFile{Path: f.Name, Content: within, Truncated: truncated})
	}
	return out
}

// Trim is OpenClaw's trimBootstrapContent: trailing white space removed;
// when still longer than maxChars, the first 70 % and the last 20 % with the
// marker between them. It returns the content, whether it was cut and the
// trimmed length.
func Trim(content, name string, maxChars int) (string, bool, int) {
	t := strings.TrimRightFunc(content, isJSSpace)
	u := utf16.Encode([]rune(t))
	if len(u) <= maxChars {
		return t, false, len(u)
	}
	head := int(float64(maxChars) * headRatio)
	tail := int(float64(maxChars) * tailRatio)
	marker := strings.Join([]string{
		"",
		"[...truncated, read " + name + " for full content...]",
		"…(truncated " + name + ": kept " + strconv.Itoa(head) + "+" + strconv.Itoa(tail) + " chars of " + strconv.Itoa(len(u)) + ")…",
		"",
	}, "\n")
	return uslice(u, 0, head) + "\n" + marker + "\n" + uslice(u, len(u)-tail, len(u)), true, len(u)
}

// clampToBudget cuts s to budget UTF-16 units, ending in "…" when cut.
func clampToBudget(s string, budget int) string {
	if budget <= 0 {
		return ""
	}
	u := utf16.Encode([]rune(s))
	if len(u) <= budget {
		return s
	}
	if budget <= 3 {
		return uslice(u, 0, budget)
	}
	return uslice(u, 0, budget-1) + "…"
}

// ulen is s's length in UTF-16 code units (JavaScript's length).
func ulen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// uslice is u[i:j] as a string, never splitting a surrogate pair (a cut
// pair is left out).
func uslice(u []uint16, i, j int) string {
	if i > 0 && i < len(u) && utf16.IsSurrogate(rune(u[i])) && u[i] >= 0xDC00 {
		i++
	}
	if j > i && j < len(u) && u[j-1] >= 0xD800 && u[j-1] < 0xDC00 {
		j--
	}
	if j <= i {
		return ""
	}
	return string(utf16.Decode(u[i:j]))
}

// isJSSpace is JavaScript's white space for trimEnd.
func isJSSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }
