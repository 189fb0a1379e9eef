// Package config finds an OpenClaw state directory and reads its
// openclaw.json the way OpenClaw 2026.1.30 does (format §1.1–§1.4): state dir
// and config path resolution, JSON5 parsing, "$include", "${VAR}"
// substitution, and the typed views of the keys the sessions tool needs.
//
// The package only ever reads the config; it never writes it.
package config

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// Env abstracts the process environment so tests never touch the real $HOME.
type Env struct {
	Getenv func(string) string // os.Getenv in production; nil means an empty environment
	Home   string              // $HOME (os.UserHomeDir) in production
	// Cwd is the directory relative paths are resolved against; "" means the
	// process working directory (os.Getwd).
	Cwd string
}

// OSEnv returns the real process environment.
func OSEnv() Env {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		// Node's os.homedir() falls back to the passwd entry.
		if u, uerr := user.Current(); uerr == nil {
			home = u.HomeDir
		}
	}
	return Env{Getenv: os.Getenv, Home: home}
}

// get returns the value of an environment variable ("" when unset).
func (e Env) get(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// trimmed returns the value of an environment variable trimmed the way
// JavaScript's String.prototype.trim does.
func (e Env) trimmed(name string) string { return jsTrim(e.get(name)) }

// home returns the home directory, or the working directory when unknown
// (so a missing $HOME never produces paths relative to "/").
func (e Env) home() string {
	if e.Home != "" {
		return e.Home
	}
	return e.cwd()
}

// cwd returns the directory relative paths are resolved against.
func (e Env) cwd() string {
	if e.Cwd != "" {
		return e.Cwd
	}
	wd, err := os.Getwd()
	if err != nil {
		return string(filepath.Separator)
	}
	return wd
}

// abs is Node's path.resolve(p) against env's working directory.
func (e Env) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.cwd(), p)
}

// expandTilde replaces a leading "~" that is followed by the end of the
// string, "/" or "\" with the home directory (regex ^~(?=$|[\\/])). "~user"
// is left alone. Without a known home directory nothing is replaced.
func (e Env) expandTilde(p string) string {
	if e.Home == "" || !strings.HasPrefix(p, "~") {
		return p
	}
	if len(p) == 1 || p[1] == '/' || p[1] == '\\' {
		return e.Home + p[1:]
	}
	return p
}

// ResolveUserPath is OpenClaw's resolveUserPath (format §1.1): trim; expand a
// leading "~" (only "~", "~/…" or "~\…"); make the result absolute against
// the working directory and clean it. An empty or blank input returns "".
func ResolveUserPath(p string, env Env) string {
	t := jsTrim(p)
	if t == "" {
		return ""
	}
	return env.abs(env.expandTilde(t))
}

// jsTrim trims the characters JavaScript's String.prototype.trim removes:
// WhiteSpace (TAB, VT, FF, ZWNBSP, every Zs space) and LineTerminator (LF,
// CR, LS, PS). Unlike strings.TrimSpace it removes U+FEFF and keeps U+0085.
func jsTrim(s string) string {
	return strings.TrimFunc(s, isJSSpace)
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}
