package sanitize

import (
	"encoding/json"

	"github.com/openclaw/sessions/internal/jsonx"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Masking as OpenClaw 2026.9.6's sessions_history does it
// (redactToolPayloadText): every match of a credential pattern has its secret
// (the last non-empty capture group, or the whole match when the pattern has
// none) replaced by maskToken: "***" when shorter than 18 characters, else
// its first 6 characters, "…" and its last 4 (field values keep their quotes
// and closing punctuation after it). Patterns are case-insensitive (OpenClaw
// compiles them with the "gi" flags) except its "/…/g" literals. The config's
// logging.redactPatterns run first, then the defaults.
//
// OpenClaw's patterns are JavaScript regular expressions; Go's RE2 has no
// lookaround or backreferences. Its default list is ported in full: the
// structured-field rules (redact_fields.go: env/config/JSON assignments,
// CLI flags, HTTP auth headers) with each backreference spelled out and
// each lookaround checked on the match, the vendor tokens below (a
// trailing negative lookahead after a greedy class is dropped: it can never
// fail there), PEM private key blocks, URL query parameters, form bodies,
// standalone AWS secret keys and the Digest/AWS4/Hawk auth-parameter pass
// (redact_url.go, redact_form.go, redact_auth.go, redact_aws.go). \s is
// JavaScript's.
// 9.6's bounds are kept too: on a text over 32768 characters most patterns
// run chunk by chunk (replaceBounded), so a vendor token across a
// 16384-character edge stays as it is, there as here. Not reproduced: the
// secrets a running OpenClaw registers at run time (we have none), and an
// astral character split by a chunk edge (kept whole in the chunk before).
// A configured pattern RE2 cannot compile is skipped with one warning.

const (
	redactMinLength = 18 // DEFAULT_REDACT_MIN_LENGTH
	redactKeepStart = 6  // DEFAULT_REDACT_KEEP_START
)

// identifierBoundary is IDENTIFIER_SAFE_TOKEN_BOUNDARY; OpenClaw's
// BASE64_SAFE_TOKEN_BOUNDARY is this plus a lookbehind RE2 lacks.
const (
	identifierBoundary = `(^|[^A-Za-z0-9_])`
	base64Boundary     = `(^|[^A-Za-z0-9])`
)

// vendorRedactPatterns are 9.6's VENDOR_TOKEN_REDACT_PATTERNS, in its
// order (they follow the field patterns and the PEM block).
var vendorRedactPatterns = []string{
	`\b(sk-[A-Za-z0-9_-]{8,})\b`,
	`(ghp_[A-Za-z0-9]{10,})`,
	`(github_pat_[A-Za-z0-9_]{10,})`,
	`(gho_[A-Za-z0-9]{10,})`,
	`(ghu_[A-Za-z0-9]{10,})`,
	`(ghs_[A-Za-z0-9]{10,})`,
	`(ghr_[A-Za-z0-9]{10,})`,
	`(glpat-[A-Za-z0-9._=\-]{20,})`,
	`(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))`,
	`(gldt-[A-Za-z0-9_-]{20,})`,
	`(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})`,
	`(glptt-[A-Za-z0-9_-]{40,})`,
	`(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))`,
	`(glimt-[A-Za-z0-9_-]{25,})`,
	`(glagent-[A-Za-z0-9_-]{50,})`,
	`(glwt-[A-Za-z0-9_-]{20,})`,
	`(glsoat-[A-Za-z0-9_-]{20,})`,
	`(glffct-[A-Za-z0-9_-]{20,})`,
	`(glrt-[A-Za-z0-9._-]{20,})`,
	`(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})`,
	`(GR1348941[A-Za-z0-9_-]{20,})`,
	`(_gitlab_session=[A-Za-z0-9%._-]{20,})`,
	`(xox[baprs]-[A-Za-z0-9-]{10,})`,
	`(xapp-[A-Za-z0-9-]{10,})`,
	`(https:\/\/hooks\.slack\.com\/(?:services\/T[A-Z0-9]+\/B[A-Z0-9]+|workflows\/T[A-Z0-9]+\/A[A-Z0-9]+\/[0-9]{17,19})\/[A-Za-z0-9]{20,})`,
	`(https:\/\/discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{60,})`,
	`discord(?:.|\n|\r){0,40}?\b([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27})\b`,
	`(gsk_[A-Za-z0-9_-]{10,})`,
	`(AIza[0-9A-Za-z\-_]{20,})`,
	`(ya29\.[0-9A-Za-z_\-./+=]{10,})`,
	`(1//0[0-9A-Za-z_\-./+=]{10,})`,
	`(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`,
	`(pplx-[A-Za-z0-9_-]{10,})`,
	`(fal_[A-Za-z0-9_-]{10,})`,
	identifierBoundary + `(fc-[A-Za-z0-9]{10,})`,
	`(bb_live_[A-Za-z0-9_-]{10,})`,
	base64Boundary + `(gAAAA[A-Za-z0-9_=-]{20,})`,
	`(sk_live_[A-Za-z0-9]{10,})`,
	`(sk_test_[A-Za-z0-9]{10,})`,
	`(rk_live_[A-Za-z0-9]{10,})`,
	`(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`,
	`(npm_[A-Za-z0-9]{10,})`,
	`(pypi-[A-Za-z0-9_-]{10,})`,
	`(dop_v1_[A-Za-z0-9]{10,})`,
	`(doo_v1_[A-Za-z0-9]{10,})`,
	`(dor_v1_[A-Za-z0-9]{10,})`,
	`(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})`,
	`(dp\.st\.[A-Za-z0-9]{40,44})`,
	`(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})`,
	`(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})`,
	`(bkua_[a-z0-9]{40})`,
	`(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})`,
	`(sbp_[a-z0-9]{40})`,
	base64Boundary + `(dapi[0-9a-f]{32}(?:-\d)?)`,
	`(dd[pw]_[A-Za-z0-9]{36})`,
	`(glsa_[A-Za-z0-9_]{41})`,
	`(glc_eyJ[A-Za-z0-9+/=]{60,160})`,
	`(nfp_[A-Za-z0-9_]{36})`,
	`(CFPAT-[A-Za-z0-9_\-]{40,})`,
	base64Boundary + `(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})`,
	base64Boundary + `(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})`,
	base64Boundary + `(ATBB[A-Za-z0-9_=.-]{16,})`,
	`(BBDC-[A-Za-z0-9+/@_-]{40,50})`,
	`(HRKU-AA[A-Za-z0-9_-]{20,})`,
	`(pat-(?:eu|na)1-[A-Za-z0-9]{8}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{12})`,
	`(apify_api_[A-Za-z0-9\-]{20,})`,
	`(FlyV1 fm\d+_[A-Za-z0-9+/=,_-]{100,})`,
	`(fio-u-[A-Za-z0-9_-]{40,})`,
	`(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})`,
	`(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})`,
	`(tvly-[A-Za-z0-9]{10,})`,
	`(exa_[A-Za-z0-9]{10,})`,
	`(syt_[A-Za-z0-9]{10,})`,
	`(retaindb_[A-Za-z0-9]{10,})`,
	`(hsk-[A-Za-z0-9]{10,})`,
	`(mem0_[A-Za-z0-9]{10,})`,
	`(brv_[A-Za-z0-9]{10,})`,
	`(xai-[A-Za-z0-9]{30,})`,
	identifierBoundary + `(fw-[A-Za-z0-9]{30,})`,
	identifierBoundary + `(fw_[A-Za-z0-9]{30,})`,
	identifierBoundary + `(fpk_[A-Za-z0-9]{30,})`,
	base64Boundary + `(AKIA[A-Z0-9]{16})`,
	base64Boundary + `(ASIA[A-Z0-9]{16})`,
	`(AKID[A-Za-z0-9]{10,})`,
	`(LTAI[A-Za-z0-9]{10,})`,
	`(hf_[A-Za-z0-9]{10,})`,
	`(api_org_[A-Za-z0-9]{20,})`,
	`(r8_[A-Za-z0-9]{10,})`,
	`\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b`,
	`\b(\d{6,}:[A-Za-z0-9_-]{20,})\b`,
}

// pemPattern is PEM_REDACT_PATTERN_SOURCE: a private key block, replaced
// whole (pemBlock) after the URL patterns.
const pemPattern = `-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----`

// compiledDefaults compiles them on first use, not at start: compiling
// costs milliseconds, which every command would pay (and `sessions mcp`
// before it is ready) though most never mask anything.
var compiledDefaults = sync.OnceValue(func() []redactPattern {
	var all []redactPattern
	for _, f := range fieldSpecs {
		prefix := "(?i)"
		if f.caseSensitive {
			prefix = ""
		}
		p, err := compileRedactPattern(prefix + jsWhitespace(f.src))
		if err != nil {
			panic(err)
		}
		p.mode, p.formAware, p.reject, p.need, p.chunkUnsafe, p.skip = f.mode, f.formAware, f.reject, f.need, f.chunkUnsafe, f.skip
		p.leadingAnchor = strings.HasPrefix(f.src, "(^|")
		all = append(all, p)
	}
	// OpenClaw's order: the field patterns, the PEM block (before the AWS
	// secret key field), then the vendor tokens.
	pem := mustCompileAll([]string{pemPattern})[0]
	pem.pem = true
	n := len(all) - 1
	all = append(all[:n:n], pem, all[n])
	return append(all, mustCompileAll(vendorRedactPatterns)...)
})

// pemBlock is redactPemBlock: the BEGIN and END lines around "…redacted…",
// or "***" when the block is on one line.
func pemBlock(block string) string {
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		return "***"
	}
	return lines[0] + "\n…redacted…\n" + lines[len(lines)-1]
}

func mustCompileAll(srcs []string) []redactPattern {
	out := make([]redactPattern, len(srcs))
	for i, s := range srcs {
		p, err := compileRedactPattern(`(?i)` + jsWhitespace(s))
		if err != nil {
			panic(err)
		}
		p.leadingAnchor = strings.HasPrefix(s, "(^|")
		// 9.6 runs these on the whole of a long text (CHUNK_UNSAFE: a
		// boundary before the token, or the Telegram tokens)
		p.chunkUnsafe = strings.HasPrefix(s, identifierBoundary) || strings.HasPrefix(s, base64Boundary) || strings.Contains(s, `(\d{6,}:`)
		if strings.HasPrefix(s, base64Boundary) {
			p.reject, p.skip = inBase64Data, skipBase64
		}
		out[i] = p
	}
	return out
}

// inBase64Data is BASE64_SAFE_TOKEN_BOUNDARY's lookbehind
// (?<!;base64,[A-Za-z0-9+/=]*): the token (group 2) is not part of a data
// URL's base64 payload.
func inBase64Data(s string, loc []int) bool {
	i := loc[4]
	for i > 0 && isBase64DataChar(s[i-1]) {
		i--
	}
	scanWork.Add(int64(loc[4] - i))
	return strings.HasSuffix(s[:i], ";base64,")
}

func isBase64DataChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// redactPattern is a compiled pattern and literals one of which every
// match contains (lower-cased; nil when there are none): a text without
// them is not scanned.
type redactPattern struct {
	re       *regexp.Regexp
	literals []string
	// pem: the private key block pattern (its match is replaced whole).
	pem bool
	// mode and formAware say how the secret is masked (maskFor).
	mode      maskMode
	formAware bool
	// reject: a lookaround of OpenClaw's pattern fails for this match.
	reject func(s string, loc []int) bool
	// need: lists of strings (lower-case) the text must hold one of each.
	need [][]string
	// chunkUnsafe: on a text over 32768 characters this pattern still runs
	// on the whole text; the others run on each 16384-character chunk, as
	// in 9.6 (replacePatternBounded).
	chunkUnsafe bool
	// canEmpty: the pattern can match the empty string (only a configured
	// one can); its matches are found as JavaScript's replace finds them.
	canEmpty bool
	// leadingAnchor: the pattern starts (^|…), so a search resumed
	// mid-text must not take "^" there.
	leadingAnchor bool
	// skip: after a rejected match, where the next one that can pass
	// starts (redact_linear.go); naiveRetry: always one character later
	// instead, as before (the tests' reference).
	skip       skipKind
	naiveRetry bool
}

func compileRedactPattern(src string) (redactPattern, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return redactPattern{}, err
	}
	p := redactPattern{re: re}
	if tree, err := syntax.Parse(src, syntax.Perl); err == nil {
		p.literals = requiredLiterals(tree.Simplify())
		p.canEmpty = minMatchLen(tree.Simplify()) == 0
	}
	return p, nil
}

// requiredLiterals are literals one of which every match of re contains
// (nil when there is no such set): a text holding none is not scanned.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if len(l) == 0 {
				continue
			}
			shortest := len(l[0])
			for _, x := range l {
				shortest = min(shortest, len(x))
			}
			if shortest > bestLen {
				best, bestLen = l, shortest
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if len(l) == 0 {
				return nil
			}
			out = append(out, l...)
		}
		return out
	}
	return nil
}

// Redactor masks credentials in text handed to an agent. Build it once
// (NewRedactor) and share it: it is safe for concurrent use.
type Redactor struct {
	patterns []redactPattern
	// gate and gated: the patterns' literals found in one pass
	// (redact_gate.go).
	gate  *litGate
	gated []gatedPattern
	// rec and keep: the agent boundary's hooks (boundary.go); nil on
	// the shared Redactors NewRedactor returns.
	rec  func(masked string)
	keep func(s string) bool
	// as96: no edge pass (redact_edge.go), a long text masked chunk by
	// chunk only, exactly as 9.6 does (the corpus comparison).
	as96 bool
	// clean: the short texts these patterns leave as they are (clean.go),
	// shared by the copies.
	clean *cleanSet
}

// redactors keeps the Redactor of each list of configured patterns: a
// server that builds one per call compiles (and warns) once.
var redactors sync.Map // string (the patterns, NUL-joined) -> *Redactor

// NewRedactor compiles the config's logging.redactPatterns (each a regular
// expression source, or "/source/flags" as OpenClaw accepts) ahead of the
// defaults. Patterns RE2 cannot compile are left out; warn (when not nil)
// is called naming them all, the first time this process meets the list.
func NewRedactor(userPatterns []string, warn func(msg string)) *Redactor {
	key := strings.Join(userPatterns, "\x00")
	if r, ok := redactors.Load(key); ok {
		return r.(*Redactor)
	}
	r, bad, unsafe := compileRedactor(userPatterns)
	if prev, loaded := redactors.LoadOrStore(key, r); loaded {
		return prev.(*Redactor)
	}
	if len(bad) > 0 && warn != nil {
		warn("logging.redactPatterns: skipping patterns Go cannot compile: " + strings.Join(bad, ", "))
	}
	if len(unsafe) > 0 && warn != nil {
		warn("logging.redactPatterns: skipping patterns OpenClaw refuses as unsafe (nested repetition): " + strings.Join(unsafe, ", "))
	}
	return r
}

// compileRedactor compiles the configured patterns ahead of the defaults;
// bad are those RE2 cannot compile, unsafe those OpenClaw's safe-regex
// check refuses (both left out).
func compileRedactor(userPatterns []string) (r *Redactor, bad, unsafe []string) {
	r = &Redactor{clean: newCleanSet()}
	for _, raw := range userPatterns {
		src, flags := redactPatternSource(raw)
		if strings.TrimSpace(src) == "" {
			continue
		}
		prefix := "(?i)"
		if flags != "" {
			prefix = ""
			if strings.Contains(flags, "i") {
				prefix += "(?i)"
			}
			if strings.Contains(flags, "s") {
				prefix += "(?s)"
			}
			if strings.Contains(flags, "m") {
				prefix += "(?m)"
			}
		}
		if hasNestedRepetition(strings.TrimSpace(src)) {
			unsafe = append(unsafe, raw) // OpenClaw drops it too
			continue
		}
		p, err := compileRedactPattern(prefix + jsWhitespace(strings.TrimSpace(src)))
		if err != nil {
			bad = append(bad, raw)
			continue
		}
		r.patterns = append(r.patterns, p)
	}
	r.patterns = append(r.patterns, compiledDefaults()...)
	r.buildGate()
	return r, bad, unsafe
}

// redactPatternSource is parseRedactPatternSource: "/src/flags" literals
// keep their flags; a bare source gets "gi" (flags "" here means the
// default case-insensitive matching).
func redactPatternSource(raw string) (src, flags string) {
	if len(raw) >= 3 && raw[0] == '/' {
		if end := strings.LastIndexByte(raw, '/'); end > 0 {
			f := raw[end+1:]
			if strings.Trim(f, "gimsuy") == "" {
				return raw[1:end], f + "g"
			}
		}
	}
	return raw, ""
}

// Redact returns text with every secret masked and whether anything changed.
func (r *Redactor) Redact(text string) (string, bool) {
	if r == nil || text == "" || r.cleanSet().has(text) {
		return text, false
	}
	next := redactFormBody(redactQueryValues(redactStructuredAuthHeaders(text)))
	var sc *gateScratch
	if r.gate != nil {
		sc = r.gate.get(len(r.patterns))
		defer r.gate.pool.Put(sc)
	}
	fresh := false // sc is of next
	for i, p := range r.patterns {
		g := &r.gated[i]
		if sc != nil && (len(g.lits) > 0 || len(g.need) > 0) {
			if !fresh {
				r.gate.scan(strings.ToLower(next), sc)
				fresh = true
			}
			if !sc.may(i, g) {
				continue
			}
		}
		if masked := replaceBounded(p, next, !r.as96); masked != next {
			next, fresh = masked, false
		}
	}
	next = redactAWSSecrets(next)
	if next == text {
		r.cleanSet().add(text)
	} else if r.rec != nil {
		r.rec(next)
	}
	return next, next != text
}

const (
	chunkThreshold = 32768 // REDACT_REGEX_CHUNK_THRESHOLD, UTF-16 units
	chunkSize      = 16384 // REDACT_REGEX_CHUNK_SIZE
)

// replaceBounded is replacePatternBounded: a text over chunkThreshold
// characters is masked chunk by chunk (a chunk's start is a text's start),
// unless the pattern is chunk-unsafe or the private key block. Beyond 9.6,
// a match across a chunk's edge, which 9.6 never finds, is masked too
// (edgeEdits).
func replaceBounded(p redactPattern, s string, edges bool) string {
	if p.chunkUnsafe || p.pem || len(s) <= chunkThreshold {
		return replaceSecrets(p, s)
	}
	cuts, whole := chunkCuts(s)
	if whole {
		return replaceSecrets(p, s)
	}
	var edits []edit
	start := 0
	for _, c := range append(cuts, len(s)) {
		chunk := s[start:c]
		edits = p.appendEdits(edits, chunk, p.findAll(chunk), start)
		start = c
	}
	if !edges {
		return applyEdits(s, edits)
	}
	return applyEdits(s, mergeEdgeEdits(s, edits, edgeEdits(p, s, cuts)))
}

// chunkCuts are the byte offsets of s's chunk edges: every chunkSize
// UTF-16 units (an astral character across an edge stays whole, in the
// chunk before); whole when s is not over chunkThreshold units.
func chunkCuts(s string) (cuts []int, whole bool) {
	n, next := 0, chunkSize
	for i, r := range s {
		if n >= next {
			cuts = append(cuts, i)
			next += chunkSize
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return cuts, n <= chunkThreshold
}

// scanWork counts the bytes the masking scans cover: each regular
// expression search counts the bytes from where it starts to where its match
// ends (to the text's end when there is none), each walk of a lookaround
// check the bytes it steps over. Tests read it to check that masking is
// linear in the text without a clock.
var scanWork atomic.Int64

// searched counts one search of s[pos:] that found loc (nil: none).
func searched(s string, pos int, loc []int) {
	if loc == nil {
		scanWork.Add(int64(len(s) - pos))
	} else {
		scanWork.Add(int64(loc[1] - pos))
	}
}

// findAll is every match of p in s, leftmost first, without overlaps; a
// match p.reject refuses is searched again one character later.
func (p redactPattern) findAll(s string) [][]int {
	if p.canEmpty {
		return p.findAllJS(s)
	}
	if p.reject == nil {
		scanWork.Add(int64(len(s)))
		return p.re.FindAllStringSubmatchIndex(s, -1)
	}
	var out [][]int
	var b64 base64Memo
	for pos := 0; pos <= len(s); {
		loc := p.re.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			searched(s, pos, nil)
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += pos
			}
		}
		searched(s, pos, loc)
		// "^" only matches at the real start of the text.
		atCut := pos > 0 && p.leadingAnchor && loc[0] == pos && loc[2] == loc[3]
		rejected := atCut
		if !rejected {
			if p.skip == skipBase64 && !p.naiveRetry {
				rejected = b64.inData(s, loc[4])
			} else {
				rejected = p.reject(s, loc)
			}
		}
		if rejected {
			_, w := utf8.DecodeRuneInString(s[loc[0]:])
			pos = loc[0] + max(w, 1)
			if !atCut && !p.naiveRetry {
				// past the matches that overlap this one and fail
				// alike (redact_linear.go)
				pos = max(pos, p.resume(s, loc))
			}
			continue
		}
		out = append(out, loc)
		pos = loc[1]
		if loc[1] == loc[0] {
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += max(w, 1)
		}
	}
	return out
}

// findAllJS is every match as JavaScript's global replace finds them: an
// empty match right after a match counts too (Go's FindAll drops it). The
// search resumes on the rest of the text, where "^" and "\b" see its start
// as the text's (a configured pattern that matches the empty string is
// already a corner case).
func (p redactPattern) findAllJS(s string) [][]int {
	var out [][]int
	for pos := 0; pos <= len(s); {
		loc := p.re.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			searched(s, pos, nil)
			break
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += pos
			}
		}
		searched(s, pos, loc)
		out = append(out, loc)
		pos = loc[1]
		if loc[1] == loc[0] {
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += max(w, 1)
		}
	}
	return out
}

// minMatchLen is the fewest characters a match of re holds.
func minMatchLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minMatchLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minMatchLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minMatchLen(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := minMatchLen(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0 // empty-width assertions, *, ?, the empty match
}

// replaceSecrets masks, in every match of p, its last non-empty capture
// group (the whole match when there is none) as maskFor says.
func replaceSecrets(p redactPattern, s string) string {
	locs := p.findAll(s)
	if locs == nil {
		return s
	}
	return applyEdits(s, p.appendEdits(nil, s, locs, 0))
}

// edit replaces s[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

// appendEdits appends the replacements of the matches locs of p in s, at
// s's offset off in the whole text.
func (p redactPattern) appendEdits(edits []edit, s string, locs [][]int, off int) []edit {
	cursor := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		// any match holding a key block is replaced whole, as a block
		if p.pem || strings.Contains(s[start:end], "PRIVATE KEY-----") {
			if start < cursor {
				continue
			}
			edits = append(edits, edit{off + start, off + end, pemBlock(s[start:end])})
			cursor = end
			continue
		}
		if g := lastGroup(loc); g > 0 {
			start, end = loc[2*g], loc[2*g+1]
		}
		if start < cursor {
			continue
		}
		masked, ok := p.maskFor(s[loc[0]:loc[1]], s[start:end])
		if !ok {
			continue
		}
		edits = append(edits, edit{off + start, off + end, masked})
		cursor = end
	}
	return edits
}

// applyEdits is s with the edits (in order, not overlapping) made.
func applyEdits(s string, edits []edit) string {
	if len(edits) == 0 {
		return s
	}
	var b strings.Builder
	cursor := 0
	for _, e := range edits {
		b.WriteString(s[cursor:e.start])
		b.WriteString(e.repl)
		cursor = e.end
	}
	b.WriteString(s[cursor:])
	return b.String()
}

// maskToken is OpenClaw's: "***" below 18 characters, else the first 6 and
// the last 4 around "…" — characters as JavaScript counts them (UTF-16
// code units), never splitting a surrogate pair (sliceUtf16Safe).
func maskToken(token string) string {
	if token == "***" {
		return token
	}
	if len(token) < redactMinLength { // fewer bytes, fewer units
		return "***"
	}
	u := units(token)
	n := len(u)
	if n < redactMinLength {
		return "***"
	}
	to := redactKeepStart
	if isHighSurrogate(u[to-1]) && isLowSurrogate(u[to]) {
		to--
	}
	from := n - 4
	if isLowSurrogate(u[from]) && isHighSurrogate(u[from-1]) {
		from++
	}
	return decodeUnits(u[:to]) + "…" + decodeUnits(u[from:])
}

// RedactMessage masks the texts of one transcript message that
// sessions_history masks: a string "content", a string top-level "text",
// and in an array "content" every block's string "text", a "thinking"
// block's "thinking" and any block's string "partialJson". Other keys and
// their order are kept; redacted reports whether anything was masked.
func (r *Redactor) RedactMessage(raw json.RawMessage) (out json.RawMessage, redacted bool) {
	if r == nil || !isObject(raw) {
		return raw, false
	}
	var o jsonx.Object
	if err := o.UnmarshalJSON(raw); err != nil {
		return raw, false
	}
	changed := r.redactKey(&o, "text")
	content := o.Raw("content")
	switch {
	case isString(content):
		changed = r.redactKey(&o, "content") || changed
	case isArray(content):
		var blocks []json.RawMessage
		if err := json.Unmarshal(content, &blocks); err == nil {
			blocksChanged := false
			for i, b := range blocks {
				if nb, ok := r.redactBlock(b); ok {
					blocks[i], blocksChanged = nb, true
				}
			}
			if blocksChanged {
				o.SetRaw("content", joinArray(blocks))
				changed = true
			}
		}
	}
	if !changed {
		return raw, false
	}
	b, err := o.MarshalJSON()
	if err != nil {
		return raw, false
	}
	return b, true
}

func (r *Redactor) redactBlock(raw json.RawMessage) (json.RawMessage, bool) {
	if !isObject(raw) {
		return raw, false
	}
	var o jsonx.Object
	if err := o.UnmarshalJSON(raw); err != nil {
		return raw, false
	}
	changed := r.redactKey(&o, "text")
	if typ, _ := o.String("type"); typ == "thinking" {
		changed = r.redactKey(&o, "thinking") || changed
	}
	changed = r.redactKey(&o, "partialJson") || changed
	if !changed {
		return raw, false
	}
	b, err := o.MarshalJSON()
	if err != nil {
		return raw, false
	}
	return b, true
}

// redactKey masks o[k] when it is a string.
func (r *Redactor) redactKey(o *jsonx.Object, k string) bool {
	v := o.Raw(k)
	if !isString(v) {
		return false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return false
	}
	masked, ok := r.Redact(s)
	if !ok {
		return false
	}
	o.SetRaw(k, encodeString(units(masked)))
	return true
}
