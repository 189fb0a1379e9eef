package sanitize

import (
	"math"
	"strconv"
)

// hasNestedRepetition is OpenClaw's safe-regex check (src/security/
// safe-regex.ts), which refuses a configured pattern that repeats a
// repetition ("(a+)+") or, unboundedly, an alternation whose branches
// differ in length ("(a|bc)+"): 9.6 drops such a logging.redactPatterns
// entry, and so do we. A port of its tokenizer and analysis, on UTF-16
// units as there.
func hasNestedRepetition(source string) bool {
	return analyzeNestedRepetition(tokenizePattern(units(source)))
}

type reTokenKind int

const (
	reSimple reTokenKind = iota
	reGroupOpen
	reGroupClose
	reAlternation
	reQuantifier
)

type reToken struct {
	kind     reTokenKind
	min      int
	max      int // -1: unbounded
	consumed int
}

func isDigitUnit(c uint16) bool { return c >= '0' && c <= '9' }

func unitAt(u []uint16, i int) uint16 {
	if i < 0 || i >= len(u) {
		return 0
	}
	return u[i]
}

// readQuantifier is the quantifier at i (*, +, ?, {n}, {n,}, {n,m}, each
// possibly lazy), ok false when there is none.
func readQuantifier(u []uint16, i int) (reToken, bool) {
	ch := unitAt(u, i)
	consumed := 1
	if unitAt(u, i+1) == '?' {
		consumed = 2
	}
	switch ch {
	case '*':
		return reToken{kind: reQuantifier, min: 0, max: -1, consumed: consumed}, true
	case '+':
		return reToken{kind: reQuantifier, min: 1, max: -1, consumed: consumed}, true
	case '?':
		return reToken{kind: reQuantifier, min: 0, max: 1, consumed: consumed}, true
	case '{':
	default:
		return reToken{}, false
	}
	j := i + 1
	for j < len(u) && isDigitUnit(u[j]) {
		j++
	}
	if j == i+1 {
		return reToken{}, false
	}
	lo, _ := strconv.Atoi(string(utf16Digits(u[i+1 : j])))
	hi := lo
	if unitAt(u, j) == ',' {
		j++
		start := j
		for j < len(u) && isDigitUnit(u[j]) {
			j++
		}
		if j == start {
			hi = -1
		} else {
			hi, _ = strconv.Atoi(string(utf16Digits(u[start:j])))
		}
	}
	if unitAt(u, j) != '}' {
		return reToken{}, false
	}
	j++
	if unitAt(u, j) == '?' {
		j++
	}
	if hi != -1 && hi < lo {
		return reToken{}, false
	}
	return reToken{kind: reQuantifier, min: lo, max: hi, consumed: j - i}, true
}

func utf16Digits(u []uint16) []byte {
	b := make([]byte, len(u))
	for i, c := range u {
		b[i] = byte(c)
	}
	return b
}

func tokenizePattern(u []uint16) []reToken {
	var tokens []reToken
	inClass := false
	for i := 0; i < len(u); i++ {
		ch := u[i]
		if inClass {
			if ch == '\\' {
				i++
				continue
			}
			if ch == ']' {
				inClass = false
			}
			continue
		}
		switch ch {
		case '\\':
			i++
			tokens = append(tokens, reToken{kind: reSimple})
			continue
		case '[':
			inClass = true
			tokens = append(tokens, reToken{kind: reSimple})
			continue
		case '(':
			tokens = append(tokens, reToken{kind: reGroupOpen})
			continue
		case ')':
			tokens = append(tokens, reToken{kind: reGroupClose})
			continue
		case '|':
			tokens = append(tokens, reToken{kind: reAlternation})
			continue
		}
		if q, ok := readQuantifier(u, i); ok {
			tokens = append(tokens, q)
			i += q.consumed - 1
			continue
		}
		tokens = append(tokens, reToken{kind: reSimple})
	}
	return tokens
}

// lengthInfo is what the analysis knows of an emitted token.
type lengthInfo struct {
	containsRepetition, ambiguousAlternation bool
	min, max                                 float64
}

type parseFrame struct {
	last                 *lengthInfo
	containsRepetition   bool
	hasAlternation       bool
	branchMin, branchMax float64
	altMin, altMax       float64
	altSet               bool
}

func addLength(a, b float64) float64 {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Inf(1)
	}
	return a + b
}

func multiplyLength(l float64, factor int) float64 {
	if math.IsInf(l, 0) {
		if factor == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return l * float64(factor)
}

func (f *parseFrame) recordAlternative() {
	if !f.altSet {
		f.altMin, f.altMax, f.altSet = f.branchMin, f.branchMax, true
		return
	}
	f.altMin = math.Min(f.altMin, f.branchMin)
	f.altMax = math.Max(f.altMax, f.branchMax)
}

func analyzeNestedRepetition(tokens []reToken) bool {
	frames := []*parseFrame{{}}
	emit := func(t *lengthInfo) {
		f := frames[len(frames)-1]
		f.last = t
		if t.containsRepetition {
			f.containsRepetition = true
		}
		f.branchMin = addLength(f.branchMin, t.min)
		f.branchMax = addLength(f.branchMax, t.max)
	}
	for _, tok := range tokens {
		switch tok.kind {
		case reSimple:
			emit(&lengthInfo{min: 1, max: 1})
			continue
		case reGroupOpen:
			frames = append(frames, &parseFrame{})
			continue
		case reGroupClose:
			if len(frames) > 1 {
				f := frames[len(frames)-1]
				frames = frames[:len(frames)-1]
				if f.hasAlternation {
					f.recordAlternative()
				}
				lo, hi := f.branchMin, f.branchMax
				if f.hasAlternation {
					lo, hi = 0, 0
					if f.altSet {
						lo, hi = f.altMin, f.altMax
					}
				}
				emit(&lengthInfo{containsRepetition: f.containsRepetition,
					ambiguousAlternation: f.hasAlternation && f.altSet && f.altMin != f.altMax, min: lo, max: hi})
			}
			continue
		case reAlternation:
			f := frames[len(frames)-1]
			f.hasAlternation = true
			f.recordAlternative()
			f.branchMin, f.branchMax, f.last = 0, 0, nil
			continue
		}
		f := frames[len(frames)-1]
		prev := f.last
		if prev == nil {
			continue
		}
		if prev.containsRepetition {
			return true
		}
		if prev.ambiguousAlternation && tok.max == -1 {
			return true
		}
		prevMin, prevMax := prev.min, prev.max
		prev.min = multiplyLength(prev.min, tok.min)
		if tok.max == -1 {
			prev.max = math.Inf(1)
		} else {
			prev.max = multiplyLength(prev.max, tok.max)
		}
		prev.containsRepetition = true
		f.containsRepetition = true
		f.branchMin = f.branchMin - prevMin + prev.min
		rest := math.Inf(1)
		if !math.IsInf(f.branchMax, 0) && !math.IsInf(prevMax, 0) {
			rest = f.branchMax - prevMax
		}
		f.branchMax = addLength(rest, prev.max)
	}
	return false
}
