package sanitize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// linearShapes are texts of n bytes that stress one part of the masking
// each: near misses of a pattern's prefix, runs that many rejected matches
// overlap (a lookaround that fails, a base64 payload), many chunk edges,
// escapes. Each is a repeated unit (cut to n bytes), some after a head.
var linearShapes = []struct {
	name, head, unit, tail string
}{
	{"sk-prefixes", "", "sk- ", ""},
	{"key=value", "", "a=b ", ""},
	{"env-keys", "", "API_KEY= ", ""},
	{"no-spaces", "", "abcdefghij", ""},
	{"bearers", "", "Bearer ", ""},
	{"ghp-tokens", "", "ghp_abcdefghij1234567890XYZ ", ""},
	{"auth-digest", "", "Authorization: Digest a=b,", ""},
	{"auth-nested", "", "Authorization:", "&x"},
	{"proxy-auth-nested", "", "Proxy-Authorization:", "&x"},
	{"form-nested", "a=1&b=2 ", ",token=", "& x"},
	{"base64-run", "", "AKIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/", ""},
	{"base64-nested", "data:x;base64,", "+ATATTabcdefgh", "=abcdefgh"},
	{"base64-dashes", "data:x;base64,", "-ATBBabcdefghijklmnopq", ""},
	{"gauth-nested", "data:x;base64,", "+gAAAAabcdefghijklmnopqrstu", ""},
	{"json-keys", "", `"apiKey": "`, ""},
	{"cli-flags", "", "--token or --", ""},
	{"escapes", "", `\u00e9\n\t`, ""},
	{"urls", "", "https://u:p@h/?token=x&", ""},
}

func linearText(head, unit, tail string, n int) string {
	body := strings.Repeat(unit, (n-len(head)-len(tail))/len(unit)+1)
	return (head + body)[:n-len(tail)] + tail
}

// workOf is the scan work of masking s once.
func workOf(r *Redactor, s string) int64 {
	before := scanWork.Load()
	r.Redact(s)
	return scanWork.Load() - before
}

// TestRedactLinear: the work of masking grows linearly with the text — no
// clock, the scanned bytes counted (scanWork). For each shape, masking 4
// times the text costs at most twice 4 times the work (quadratic work
// grows 16 times; the factor 2: a text that masking shrinks below
// chunkThreshold at the small size runs each pattern once instead of
// chunk by chunk and then on the edges), and at most linearWorkPerByte
// bytes scanned per byte of text. (Before the skips,
// base64 runs grew 64 times for 8 times the text, and a form value of
// ",token=" scanned 2,346 bytes per byte.)
func TestRedactLinear(t *testing.T) {
	r := NewRedactor(nil, nil)
	const n = 36 << 10 // over chunkThreshold: chunks and edges from the start
	for _, sh := range linearShapes {
		small := workOf(r, linearText(sh.head, sh.unit, sh.tail, n))
		large := workOf(r, linearText(sh.head, sh.unit, sh.tail, 4*n))
		if large > 2*4*small {
			t.Errorf("%s: work %d for %d bytes, %d for %d: grows %.1f times for 4 times the text", sh.name, small, n, large, 4*n, float64(large)/float64(small))
		}
		if perByte := float64(large) / float64(4*n); perByte > float64(linearWorkPerByte) {
			t.Errorf("%s: %.1f bytes scanned per byte of text (at most %d)", sh.name, perByte, linearWorkPerByte)
		}
	}
}

// linearWorkPerByte bounds the bytes scanned per byte masked: each of the
// patterns the literal gate lets run scans the text about once (twice on a
// text with chunk edges: the chunks, then the edge pass).
var linearWorkPerByte = 2 * len(NewRedactor(nil, nil).patterns)

// BenchmarkRedactLinear: Redact on each shape at 1 and 8 MB (ns/byte:
// ns/op ÷ the size), and, side by side at 128 and 512 KB, the code before
// (as9.6: no edge pass, one character after each refusal, the base64
// lookbehind walked back each time) against the current on the shapes that
// were quadratic: -bench 'RedactLinear/(before|after)'.
func BenchmarkRedactLinear(b *testing.B) {
	r := NewRedactor(nil, nil)
	before := referenceRedactor(r)
	before.as96 = true
	for _, sh := range linearShapes {
		for _, mb := range []int{1, 8} {
			s := linearText(sh.head, sh.unit, sh.tail, mb<<20)
			b.Run(fmt.Sprintf("%s/%dMB", sh.name, mb), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for i := 0; i < b.N; i++ {
					r.Redact(s)
				}
			})
		}
	}
	for _, name := range []string{"base64-run", "gauth-nested"} {
		for _, sh := range linearShapes {
			if sh.name != name {
				continue
			}
			for _, kb := range []int{128, 512} {
				s := linearText(sh.head, sh.unit, sh.tail, kb<<10)
				for _, c := range []struct {
					name string
					r    *Redactor
				}{{"before", before}, {"after", r}} {
					b.Run(fmt.Sprintf("%s/%s/%dKB", c.name, sh.name, kb), func(b *testing.B) {
						b.SetBytes(int64(len(s)))
						for i := 0; i < b.N; i++ {
							c.r.Redact(s)
						}
					})
				}
			}
		}
	}
}

// BenchmarkMaskMessageLinear: MaskMessage on messages of 1 and 8 MB: one
// long text, many keys, deep nesting, many escapes.
func BenchmarkMaskMessageLinear(b *testing.B) {
	r := NewRedactor(nil, nil)
	shapes := map[string]func(n int) []byte{
		"long-text": func(n int) []byte {
			m, _ := json.Marshal(map[string]any{"role": "toolResult", "content": []any{map[string]string{"type": "text", "text": linearText("", "export GH=ghp_abc sk- ", "", n)}}})
			return m
		},
		"many-keys": func(n int) []byte {
			var sb strings.Builder
			sb.WriteString("{")
			for i := 0; sb.Len() < n; i++ {
				fmt.Fprintf(&sb, `"k%d":"v sk-abc",`, i)
			}
			sb.WriteString(`"z":1}`)
			return []byte(sb.String())
		},
		"deep": func(n int) []byte {
			d := n / 8
			return []byte(strings.Repeat(`{"a":[`, d) + strings.Repeat(`]}`, d))
		},
		"escapes": func(n int) []byte {
			unit := `\u00e9\u2028\"`
			return []byte(`{"text":"` + strings.Repeat(unit, n/len(unit)) + `"}`)
		},
	}
	for _, name := range []string{"long-text", "many-keys", "deep", "escapes"} {
		for _, mb := range []int{1, 8} {
			m := shapes[name](mb << 20)
			b.Run(fmt.Sprintf("%s/%dMB", name, mb), func(b *testing.B) {
				b.SetBytes(int64(len(m)))
				for i := 0; i < b.N; i++ {
					r.MaskMessage(m)
				}
			})
		}
	}
}

// referenceRedactor is r with every pattern searched again one character
// after each refused match, as before the skips: the oracle of the skips.
func referenceRedactor(r *Redactor) *Redactor {
	ref := *r
	ref.patterns = append([]redactPattern(nil), r.patterns...)
	for i := range ref.patterns {
		ref.patterns[i].naiveRetry = true
	}
	return &ref
}

// TestLinearSameMatches: the skips and the remembered base64 run find the
// same matches, and mask the same, as searching again one character after
// each refusal — on the shapes (small: the reference is quadratic) and on
// texts mixing their pieces.
func TestLinearSameMatches(t *testing.T) {
	r := NewRedactor(nil, nil)
	ref := referenceRedactor(r)
	var texts []string
	for _, sh := range linearShapes {
		for _, n := range []int{300, 3000} {
			texts = append(texts, linearText(sh.head, sh.unit, sh.tail, n))
		}
	}
	// right after a refused match, one that passes
	long := strings.Repeat("Ab1", 60)
	texts = append(texts,
		"a=1&b=2 token=x token=y&a=1", "x&y ,token=,token=v& token=abc&a=1", "k&v token=v,token=w&q=1",
		"a&b token=v\u00a0token=w&q=1", "a&b token=v;token=w token=z&q=1",
		"Authorization:"+long+"Authorization:"+long+"&x Authorization: "+long+"\n",
		"Authorization:"+long+" Authorization:abc, x", "Authorization:"+long+":Authorization:"+long+"[REDACTED] x",
		"Proxy-Authorization="+long+"Proxy-Authorization:"+long+"&Proxy-Authorization: "+long+";",
		"data:x;base64,AKIAAAAAAAAAAAAAAAAA+AKIAAAAAAAAAAAAAAAAA-AKIAAAAAAAAAAAAAAAAA AKIAAAAAAAAAAAAAAAAA",
		"data:x;base64,+gAAAAabcdefghijklmnopqrstu+gAAAAabcdefghijklmnopqrstu_gAAAAabcdefghijklmnopqrstu.gAAAAabcdefghijklmnopqrstu",
		"q;base64,ATATTabc+ATATTdef=abcdefgh-ATATTabcdef=abcdefgh")
	pieces := []string{"Authorization:", "Proxy-Authorization=", "authorization: ", " ", "&", "&a=", ",", ";", "token=", "key=",
		"data:x;base64,", "+", "/", "=", "-", "_", "ATATT", "ATBB", "AKIA", "gAAAA", "dapi", "0123456789abcdef", "ABCDEFGHIJKLMNOP",
		"[REDACTED]", "]", "\"", "'", "\\n", "\n", "\t", "Bearer ", "Basic ", "é", "\u00a0", "x", "=abcdefgh"}
	seed := uint64(1)
	for k := 0; k < 400; k++ {
		var b strings.Builder
		n := 1 + int(seed>>60)*8
		for j := 0; j < n; j++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			p := pieces[int(seed>>33)%len(pieces)]
			if seed&(1<<20) != 0 {
				p = strings.Repeat(p, 1+int(seed>>40)%12)
			}
			b.WriteString(p)
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		for i, p := range r.patterns {
			if p.skip == skipNone {
				continue
			}
			got, want := p.findAll(s), ref.patterns[i].findAll(s)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("pattern %d on %q:\n skips    %v\n one by one %v", i, trim(s), got, want)
			}
		}
		if got, want := mustRedact(r, s), mustRedact(ref, s); got != want {
			t.Fatalf("Redact(%q) = %q, one by one %q", trim(s), trim(got), trim(want))
		}
	}
}

func mustRedact(r *Redactor, s string) string { out, _ := r.Redact(s); return out }

func trim(s string) string {
	if len(s) > 300 {
		return s[:150] + "…" + s[len(s)-150:]
	}
	return s
}

// FuzzLinearSameMatches: on any text, the skips mask as the search one
// character after each refusal does.
func FuzzLinearSameMatches(f *testing.F) {
	for _, sh := range linearShapes {
		f.Add(linearText(sh.head, sh.unit, sh.tail, 600))
	}
	r := NewRedactor(nil, nil)
	ref := referenceRedactor(r)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := mustRedact(r, s), mustRedact(ref, s); got != want {
			t.Fatalf("Redact(%q) = %q, one by one %q", s, got, want)
		}
	})
}
