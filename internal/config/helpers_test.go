package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

// fakeEnv returns an Env with the given variables, home and working
// directory; it never reads the real process environment.
func fakeEnv(home, cwd string, vars map[string]string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		Home:   home,
		Cwd:    cwd,
	}
}

// sandbox creates a fake home and working directory under t.TempDir().
func sandbox(t *testing.T) (home, cwd string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	cwd = filepath.Join(root, "cwd")
	mustMkdir(t, home)
	mustMkdir(t, cwd)
	return home, cwd
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	mustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadString writes content as <dir>/openclaw.json and loads it.
func loadString(t *testing.T, content string, env Env) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	return Load(writeFile(t, filepath.Join(dir, "openclaw.json"), content), env)
}

func mustLoad(t *testing.T, content string, env Env) *Config {
	t.Helper()
	cfg, err := loadString(t, content, env)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

// wantStateErr checks that err is an *apperr.Error with exit code 10.
func wantStateErr(t *testing.T, err error) *apperr.Error {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want *apperr.Error, got %T: %v", err, err)
	}
	if ae.Code != apperr.CodeState {
		t.Fatalf("want code %d, got %d (%v)", apperr.CodeState, ae.Code, err)
	}
	return ae
}

func f64(v float64) *float64 { return &v }
