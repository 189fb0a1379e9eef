package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/lazyre"
)

// ContextsFile is the name of the contexts file under UserDir.
const ContextsFile = "contexts.json"

// AllContexts is the --context value that selects every context.
const AllContexts = "all"

// Context is a named gateway: where it is and where its secret is read
// from. The secret itself is never stored here.
type Context struct {
	Name        string `json:"name"`
	Gateway     string `json:"gateway"`
	TokenFile   string `json:"tokenFile,omitempty"`   // absolute path of a file holding the token
	TokenEnv    string `json:"tokenEnv,omitempty"`    // environment variable holding the token
	Fingerprint string `json:"fingerprint,omitempty"` // SHA-256 certificate pin (wss)
	Insecure    bool   `json:"insecure,omitempty"`    // plain ws:// to a non-loopback host allowed
}

// Contexts is the contexts file: the contexts, sorted by name, and the
// current one ("" = none: commands work on the local state).
type Contexts struct {
	Current  string    `json:"current,omitempty"`
	Contexts []Context `json:"contexts"`
}

var contextName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidateContextName checks a context name: letters, digits, ".", "_",
// "-", at most 64, not "all".
func ValidateContextName(name string) error {
	if name == AllContexts {
		return apperr.Usagef("%q cannot name a context: --context all selects every context", name)
	}
	if !contextName.MatchString(name) {
		return apperr.Usagef("invalid context name %q: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64", name)
	}
	return nil
}

var envName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// LoadContexts reads the contexts file; a missing file is an empty set.
func LoadContexts(path string) (*Contexts, error) {
	data, err := fsutil.ReadFileRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Contexts{Contexts: []Context{}}, nil
	}
	if err != nil {
		return nil, apperr.Statef("cannot read %s: %v", path, err)
	}
	var c Contexts
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, apperr.Statef("contexts file %s is corrupt: %v", path, err)
	}
	if c.Contexts == nil {
		c.Contexts = []Context{}
	}
	return &c, nil
}

// Save writes the contexts file atomically, mode 0600 (directory 0700).
func (c *Contexts) Save(path string) error {
	slices.SortFunc(c.Contexts, func(a, b Context) int { return strings.Compare(a.Name, b.Name) })
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return apperr.Statef("cannot create %s: %v", filepath.Dir(path), err)
	}
	if err := fsutil.WriteFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return apperr.Statef("cannot write %s: %v", path, err)
	}
	return nil
}

// Get returns the context named name.
func (c *Contexts) Get(name string) (Context, bool) {
	for _, x := range c.Contexts {
		if x.Name == name {
			return x, true
		}
	}
	return Context{}, false
}

// Add adds (replace=false) or replaces a context after checking it.
func (c *Contexts) Add(x Context, replace bool) error {
	if err := ValidateContextName(x.Name); err != nil {
		return err
	}
	if _, err := ValidateURL(x.Gateway, x.Insecure); err != nil {
		return err
	}
	if x.TokenFile != "" && x.TokenEnv != "" {
		return apperr.Usagef("give --token-file or --token-env, not both")
	}
	if x.TokenEnv != "" && !envName.MatchString(x.TokenEnv) {
		return apperr.Usagef("invalid --token-env %q: not a variable name", x.TokenEnv)
	}
	if x.Fingerprint != "" {
		fp, err := ParseFingerprint(x.Fingerprint)
		if err != nil {
			return err
		}
		x.Fingerprint = fp
	}
	for i, old := range c.Contexts {
		if old.Name == x.Name {
			if !replace {
				return apperr.Usagef("context %q exists (use --force to replace it)", x.Name)
			}
			c.Contexts[i] = x
			return nil
		}
	}
	c.Contexts = append(c.Contexts, x)
	return nil
}

// Remove deletes a context; removing the current one unsets current.
func (c *Contexts) Remove(name string) error {
	i := slices.IndexFunc(c.Contexts, func(x Context) bool { return x.Name == name })
	if i < 0 {
		return apperr.NotFoundf("no context %q", name)
	}
	c.Contexts = slices.Delete(c.Contexts, i, i+1)
	if c.Current == name {
		c.Current = ""
	}
	return nil
}

// Use makes name the current context ("" unsets it).
func (c *Contexts) Use(name string) error {
	if name != "" {
		if _, ok := c.Get(name); !ok {
			return apperr.NotFoundf("no context %q", name)
		}
	}
	c.Current = name
	return nil
}

// Select resolves --context values (repeatable, or "all") to contexts, in
// the order given, each once.
func (c *Contexts) Select(names []string) ([]Context, error) {
	var out []Context
	seen := map[string]bool{}
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if part == AllContexts {
				if len(c.Contexts) == 0 {
					return nil, apperr.Usagef("--context all: no contexts defined (sessions context add NAME --gateway URL)")
				}
				for _, x := range c.Contexts {
					if !seen[x.Name] {
						seen[x.Name] = true
						out = append(out, x)
					}
				}
				continue
			}
			x, ok := c.Get(part)
			if !ok {
				return nil, apperr.NotFoundf("no context %q (sessions context list)", part)
			}
			if !seen[x.Name] {
				seen[x.Name] = true
				out = append(out, x)
			}
		}
	}
	if len(out) == 0 && len(names) > 0 {
		return nil, apperr.Usagef("--context: no context named")
	}
	return out, nil
}

// ContextsPath is the contexts file: <user config dir>/sessions/contexts.json.
func ContextsPath() (string, error) {
	d, err := UserDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, ContextsFile), nil
}

// UpdateContexts loads the contexts file, applies fn and saves the result,
// holding an exclusive lock (path + ".lock") throughout so concurrent
// updates do not lose each other's changes. Nothing is written when fn fails.
func UpdateContexts(path string, fn func(*Contexts) error) (*Contexts, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, apperr.Statef("cannot create %s: %v", filepath.Dir(path), err)
	}
	lk := flock.New(path + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := lk.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil || !ok {
		return nil, apperr.Lockf("cannot lock %s.lock: %v", path, err)
	}
	defer lk.Unlock()
	c, err := LoadContexts(path)
	if err != nil {
		return nil, err
	}
	if err := fn(c); err != nil {
		return nil, err
	}
	if err := c.Save(path); err != nil {
		return nil, err
	}
	return c, nil
}
