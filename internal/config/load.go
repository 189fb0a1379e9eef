package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/titanous/json5"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
)

const (
	// IncludeKey is the directive that pulls other files into the config.
	IncludeKey = "$include"
	// MaxIncludeDepth is how deep includes may nest (includes.js).
	MaxIncludeDepth = 10
	// maxNesting bounds array/object nesting in one file so a hostile
	// config cannot overflow the stack of the recursive JSON5 decoder.
	maxNesting = 10000
)

// Load reads and parses the config at path (format §1.2).
//
// A missing file is not an error: Load returns an empty Config (all
// defaults) with Exists false. Otherwise the pipeline is: JSON5 parse →
// "$include" resolution → "${VAR}" substitution in all string values, with
// variables looked up in env first and then in the config's own "env" block
// (which never overrides a non-blank process variable).
//
// Deliberately unlike OpenClaw, a missing or empty variable does not fail the
// load: the literal "${VAR}" is kept and VAR is listed in MissingVars.
//
// Errors (unreadable file, JSON5 syntax error with line and column, include
// cycle, include depth, missing or broken include file, a top level that is
// not an object) are *apperr.Error with Code 10 naming the file.
func Load(path string, env Env) (*Config, error) {
	abs := path
	if path != "" {
		abs = env.abs(path)
	}
	cfg := &Config{Path: abs, Raw: map[string]any{}}
	// Opened without blocking: a FIFO is refused, never waited on; a
	// directory is no config.
	data, err := fsutil.ReadFileRegular(abs)
	if m, ok := fsutil.NotRegularMode(err); ok {
		return nil, apperr.Statef("cannot read config %s: not a regular file (%s)", abs, m.Type()).Wrap(err)
	}
	if err != nil {
		if isNotExist(err) {
			return cfg, nil
		}
		return nil, apperr.Statef("cannot read config %s: %w", abs, unwrapPathError(err))
	}
	cfg.Exists = true

	tree, err := parseJSON5(data)
	if err != nil {
		return nil, apperr.Statef("cannot parse config %s: %w", abs, err)
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, apperr.Statef("invalid config %s: top level must be an object, got %s", abs, jsonType(tree))
	}
	inc := &includer{base: abs, chain: []string{filepath.Clean(abs)}}
	tree, err = inc.process(tree)
	if err != nil {
		return nil, apperr.Statef("invalid config %s: %w", abs, err)
	}
	root, ok := tree.(map[string]any)
	if !ok {
		return nil, apperr.Statef("invalid config %s: top level must be an object, got %s (after $include)", abs, jsonType(tree))
	}

	block := configEnvVars(root)
	sub := &substituter{
		lookup: func(name string) (string, bool) {
			v := env.get(name)
			if jsTrim(v) != "" {
				return v, true
			}
			if bv, ok := block[name]; ok {
				return bv, true
			}
			if v != "" {
				return v, true
			}
			return "", false
		},
		missing: map[string]bool{},
	}
	root = sub.value(root).(map[string]any)
	for name := range sub.missing {
		cfg.MissingVars = append(cfg.MissingVars, name)
	}
	sort.Strings(cfg.MissingVars)

	cfg.Raw = root
	cfg.decode(env)
	return cfg, nil
}

// isNotExist reports errors for which fs.existsSync would be false.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// unwrapPathError drops the *PathError wrapper (its path is already in the
// message) and keeps the cause.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ---------------------------------------------------------------------------
// JSON5

// parseJSON5 decodes JSON5 into strict-JSON Go values (map[string]any, []any,
// float64, string, bool, nil). NaN and ±Infinity become nil, as
// JSON.stringify would write them. It never panics.
func parseJSON5(data []byte) (v any, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // JSON5 treats U+FEFF as white space
	if d := nestingDepth(data); d > maxNesting {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxNesting)
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("invalid JSON5: %v", r)
		}
	}()
	if err := json5.Unmarshal(data, &v); err != nil {
		var se *json5.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte; point at it.
			line, col := lineCol(data, se.Offset-1)
			return nil, fmt.Errorf("line %d, column %d: %s", line, col, se.Error())
		}
		return nil, err
	}
	return sanitize(v), nil
}

// lineCol converts a byte offset into a 1-based line and column (columns in
// runes).
func lineCol(data []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	col = len([]rune(string(before))) + 1
	return line, col
}

// nestingDepth returns the maximum array/object nesting of a JSON5 text,
// skipping strings and comments. It is exact for valid JSON5 (the only input
// the recursive decoder ever descends into) and harmless for invalid input.
func nestingDepth(data []byte) int {
	depth, maxDepth := 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			for i++; i < len(data) && data[i] != c; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				for i += 2; i < len(data) && data[i] != '\n' && data[i] != '\r'; i++ {
				}
			} else if i+1 < len(data) && data[i+1] == '*' {
				end := bytes.Index(data[i+2:], []byte("*/"))
				if end < 0 {
					return maxDepth
				}
				i += 2 + end + 1
			}
		case '[', '{':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return maxDepth
}

// sanitize replaces non-finite numbers with nil, in place.
func sanitize(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	case map[string]any:
		for k, e := range x {
			x[k] = sanitize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = sanitize(e)
		}
	}
	return v
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// ---------------------------------------------------------------------------
// $include (dist/config/includes.js)

type includer struct {
	base  string   // the file whose content is being processed
	chain []string // files from the root config down to base
	depth int
}

func (p *includer) process(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := p.process(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		if _, ok := x[IncludeKey]; ok {
			return p.processInclude(x)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := p.process(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

func (p *includer) processInclude(obj map[string]any) (any, error) {
	included, err := p.resolve(obj[IncludeKey])
	if err != nil {
		return nil, err
	}
	if len(obj) == 1 {
		return included, nil
	}
	incObj, ok := included.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: sibling keys require the included content to be an object, got %s",
			describeInclude(obj[IncludeKey]), jsonType(included))
	}
	rest := make(map[string]any, len(obj)-1)
	for k, e := range obj {
		if k == IncludeKey {
			continue
		}
		r, err := p.process(e)
		if err != nil {
			return nil, err
		}
		rest[k] = r
	}
	return deepMerge(incObj, rest), nil
}

func describeInclude(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("$include %q", s)
	}
	return IncludeKey
}

func (p *includer) resolve(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return p.load(x)
	case []any:
		var merged any = map[string]any{}
		for _, item := range x {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("invalid $include array item: expected string, got %s", jsonType(item))
			}
			r, err := p.load(s)
			if err != nil {
				return nil, err
			}
			merged = deepMerge(merged, r)
		}
		return merged, nil
	}
	return nil, fmt.Errorf("invalid $include value: expected string or array of strings, got %s", jsonType(v))
}

func (p *includer) load(includePath string) (any, error) {
	if strings.IndexByte(includePath, 0) >= 0 {
		return nil, fmt.Errorf("invalid $include path %q: contains a NUL byte", includePath)
	}
	resolved := includePath
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(filepath.Dir(p.base), resolved)
	}
	resolved = filepath.Clean(resolved)
	for _, seen := range p.chain {
		if seen == resolved {
			return nil, fmt.Errorf("circular $include: %s", strings.Join(append(append([]string{}, p.chain...), resolved), " -> "))
		}
	}
	if p.depth >= MaxIncludeDepth {
		return nil, fmt.Errorf("maximum $include depth (%d) exceeded at %q (in %s)", MaxIncludeDepth, includePath, p.base)
	}
	data, err := fsutil.ReadFileRegular(resolved)
	if _, ok := fsutil.NotRegularMode(err); ok {
		return nil, fmt.Errorf("cannot read $include file %q (resolved: %s, in %s): %w", includePath, resolved, p.base, fsutil.ErrNotRegular)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read $include file %q (resolved: %s, in %s): %w", includePath, resolved, p.base, unwrapPathError(err))
	}
	parsed, err := parseJSON5(data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse $include file %s: %w", resolved, err)
	}
	nested := &includer{
		base:  resolved,
		chain: append(append([]string{}, p.chain...), resolved),
		depth: p.depth + 1,
	}
	return nested.process(parsed)
}

// deepMerge merges source into target: objects merge recursively, arrays
// concatenate, anything else is replaced by source. Inputs are not modified.
func deepMerge(target, source any) any {
	if ta, ok := target.([]any); ok {
		if sa, ok := source.([]any); ok {
			out := make([]any, 0, len(ta)+len(sa))
			out = append(out, ta...)
			return append(out, sa...)
		}
	}
	if tm, ok := target.(map[string]any); ok {
		if sm, ok := source.(map[string]any); ok {
			out := make(map[string]any, len(tm)+len(sm))
			for k, v := range tm {
				out[k] = v
			}
			for k, v := range sm {
				if old, ok := out[k]; ok {
					out[k] = deepMerge(old, v)
				} else {
					out[k] = v
				}
			}
			return out
		}
	}
	return source
}

// ---------------------------------------------------------------------------
// env block and ${VAR} substitution (env-vars.js, env-substitution.js)

// configEnvVars collects the config's "env" block like collectConfigEnvVars:
// non-empty strings under env.vars, then non-blank strings directly under env
// (except "shellEnv" and "vars"), the latter winning.
func configEnvVars(root map[string]any) map[string]string {
	out := map[string]string{}
	block, _ := root["env"].(map[string]any)
	if vars, ok := block["vars"].(map[string]any); ok {
		for k, v := range vars {
			if s, ok := v.(string); ok && s != "" {
				out[k] = s
			}
		}
	}
	for k, v := range block {
		if k == "shellEnv" || k == "vars" {
			continue
		}
		if s, ok := v.(string); ok && jsTrim(s) != "" {
			out[k] = s
		}
	}
	return out
}

// validVarName is ^[A-Z_][A-Z0-9_]*$.
func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

type substituter struct {
	lookup  func(string) (string, bool)
	missing map[string]bool
}

// value returns a copy of a tree with every string value (not keys)
// substituted.
func (s *substituter) value(v any) any {
	switch x := v.(type) {
	case string:
		return s.str(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = s.value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.value(e)
		}
		return out
	}
	return v
}

// str is substituteString: "${NAME}" → value, "$${NAME}" → literal
// "${NAME}"; anything else (lower-case names, unterminated braces, a lone
// "$") is left as is. A missing or empty variable keeps "${NAME}" and is
// recorded.
func (s *substituter) str(v string) string {
	if !strings.Contains(v, "$") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		if i+2 < len(v) && v[i+1] == '$' && v[i+2] == '{' {
			start := i + 3
			if end := strings.IndexByte(v[start:], '}'); end >= 0 && validVarName(v[start:start+end]) {
				b.WriteString("${" + v[start:start+end] + "}")
				i = start + end
				continue
			}
		}
		if i+1 < len(v) && v[i+1] == '{' {
			start := i + 2
			if end := strings.IndexByte(v[start:], '}'); end >= 0 && validVarName(v[start:start+end]) {
				name := v[start : start+end]
				if val, ok := s.lookup(name); ok {
					b.WriteString(val)
				} else {
					s.missing[name] = true
					b.WriteString("${" + name + "}")
				}
				i = start + end
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// MissingIn returns the names in c.MissingVars that s still references as
// "${NAME}" — for a caller about to use a value such as an apiKey.
func (c *Config) MissingIn(s string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, name := range c.MissingVars {
		if strings.Contains(s, "${"+name+"}") {
			out = append(out, name)
		}
	}
	return out
}
