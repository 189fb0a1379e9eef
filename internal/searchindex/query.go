package searchindex

import (
	"regexp/syntax"
	"unicode"

	"github.com/openclaw/sessions/internal/search"
)

// node is a query over trigrams: the documents that hold every trigram of
// tris and match every sub (opAnd), or match one of subs (opOr). opAll
// selects nothing out: every document is a candidate.
type node struct {
	op   int
	tris []trigram
	subs []*node
}

const (
	opAll = iota
	opAnd
	opOr
)

var all = &node{op: opAll}

// literal is the node of a text every match holds as a substring: its
// folded trigrams (all, when it has fewer than three bytes folded).
func literal(s string) *node {
	t := uniq(appendTrigrams(nil, appendFold(nil, s)))
	if len(t) == 0 {
		return all
	}
	return &node{op: opAnd, tris: t}
}

// plan turns a query into its trigram query. A literal (with or without
// -i) selects by all its trigrams, exactly the documents whose folded text
// holds the folded literal's; a regular expression by the trigrams its
// matches must hold (its literals, through concatenations, alternations,
// captures and repeats of at least one), as Google Code Search's
// regexp.go does, but only what is required: the plan may over-select,
// never under-select. A regex with no literal of three bytes gives opAll.
func plan(q search.Query) (*node, error) {
	if !q.Regex {
		return literal(q.Pattern), nil
	}
	expr := q.Pattern
	if q.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return analyze(re.Simplify()), nil
}

func analyze(re *syntax.Regexp) *node {
	switch re.Op {
	case syntax.OpLiteral:
		// Case folded or not, a match folds to the literal's fold.
		return literal(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return analyze(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return analyze(re.Sub[0])
		}
		return all
	case syntax.OpConcat:
		n := &node{op: opAnd}
		for _, s := range re.Sub {
			switch c := analyze(s); c.op {
			case opAll:
			case opAnd:
				n.tris = append(n.tris, c.tris...)
				n.subs = append(n.subs, c.subs...)
			default:
				n.subs = append(n.subs, c)
			}
		}
		if len(n.tris) == 0 && len(n.subs) == 0 {
			return all
		}
		n.tris = uniq(n.tris)
		return n
	case syntax.OpAlternate:
		n := &node{op: opOr}
		for _, s := range re.Sub {
			c := analyze(s)
			if c.op == opAll {
				return all // one branch may match anything
			}
			n.subs = append(n.subs, c)
		}
		return n
	}
	return all
}

// exactly reports whether a document of one text (no tool calls) that
// holds every trigram of q's plan is certain to match q: a literal (not a
// regex, not words) of exactly three bytes folded, the one trigram its
// plan selects by, matched with -i or made of runes that have no other
// case. The folded text of such a document holds the folded literal (three
// bytes starting with a lead byte or an ASCII byte: whole runes), so its
// text holds runes that fold to the literal's: under -i a match, and
// without -i the literal's own runes (each the only rune of its fold).
// Its filter is the Filter's, checked by Candidates.
func exactly(q search.Query) bool {
	if q.Regex || q.Words || len(appendFold(nil, q.Pattern)) != 3 {
		return false
	}
	if q.IgnoreCase {
		return true
	}
	for _, r := range q.Pattern {
		if r == utf8RuneError || unicode.SimpleFold(r) != r {
			return false
		}
	}
	return true
}

// utf8RuneError: a query holding it may mean a byte that is not UTF-8,
// which the index keeps as it is and the matcher reads as U+FFFD.
const utf8RuneError = '\uFFFD'
