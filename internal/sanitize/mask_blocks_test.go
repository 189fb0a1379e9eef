package sanitize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// splitSecrets are texts holding one secret each, and the secret: what
// must not be read back, whole or as a piece, from the masked blocks a
// text is split into.
var splitSecrets = []struct{ text, secret string }{
	{"deploy ghp_Q7LfA1mmLfB1nnpqrstuZk9w done", "ghp_Q7LfA1mmLfB1nnpqrstuZk9w"},
	{"use sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12 now", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12"},
	{"export API_KEY=Xy12Wv34Ut56Sr78Qp90 && run", "Xy12Wv34Ut56Sr78Qp90"},
	{"curl -H 'Authorization: Bearer bRr7Tk0QmWx2Lp9Zs4Nd8Hy3' x", "bRr7Tk0QmWx2Lp9Zs4Nd8Hy3"},
}

// blocksMessage is a message whose content is the given texts, one block
// each, of type typ ("text" or "thinking"), under role.
func blocksMessage(role, typ string, texts ...string) string {
	var blocks []string
	for _, t := range texts {
		b, _ := json.Marshal(map[string]string{"type": typ, typ: t})
		blocks = append(blocks, string(b))
	}
	return `{"role":"` + role + `","content":[` + strings.Join(blocks, ",") + `]}`
}

// shownTexts is what a renderer shows of a masked message: its blocks'
// texts, adjacent.
func shownTexts(t *testing.T, out []byte) string {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("not JSON: %s", out)
	}
	var b strings.Builder
	for _, blk := range gjson.GetBytes(out, "content").Array() {
		b.WriteString(blk.Get("text").String())
		b.WriteString(blk.Get("thinking").String())
		for _, in := range blk.Get("content").Array() {
			b.WriteString(in.Get("text").String())
		}
	}
	return b.String()
}

// checkNoPiece fails when shown holds a piece (4 characters) of secret
// outside what a masked whole shows (its first 6 and last 4).
func checkNoPiece(t *testing.T, name, shown, secret string) {
	t.Helper()
	middle := secret[6 : len(secret)-4]
	for i := 0; i+4 <= len(middle); i++ {
		if p := middle[i : i+4]; strings.Contains(shown, p) {
			t.Errorf("%s: %q of %s shown: %q", name, p, secret, shown)
			return
		}
	}
}

// A secret split across two content blocks, at every position inside it,
// and across three: neither half goes out as stored, and masked says so.
func TestMaskMessageSecretAcrossBlocks(t *testing.T) {
	r := NewRedactor(nil, nil)
	for _, c := range splitSecrets {
		at := strings.Index(c.text, c.secret)
		// from the start of the secret's line (a key or scheme before it)
		from := strings.LastIndexByte(c.text[:at], ' ') + 1
		if c.secret == "bRr7Tk0QmWx2Lp9Zs4Nd8Hy3" {
			from = strings.Index(c.text, "Authorization")
		}
		end := at + len(c.secret)
		for _, typ := range []string{"text", "thinking"} {
			for cut := from + 1; cut < end; cut++ {
				name := fmt.Sprintf("%s %q|%q", typ, c.text[:cut], c.text[cut:])
				out, masked := r.MaskMessage([]byte(blocksMessage("assistant", typ, c.text[:cut], c.text[cut:])))
				if !masked {
					t.Errorf("%s: masked = false", name)
				}
				checkNoPiece(t, name, shownTexts(t, out), c.secret)
			}
		}
		for i := from + 1; i < end; i += 3 {
			for j := i + 1; j < end; j += 4 {
				name := fmt.Sprintf("%q|%q|%q", c.text[:i], c.text[i:j], c.text[j:])
				out, masked := r.MaskMessage([]byte(blocksMessage("toolResult", "text", c.text[:i], c.text[i:j], c.text[j:])))
				if !masked {
					t.Errorf("%s: masked = false", name)
				}
				checkNoPiece(t, name, shownTexts(t, out), c.secret)
			}
		}
	}
}

// The brief's example, and a tool result's own content array (a block of
// a message holding blocks).
func TestMaskMessageSecretAcrossBlocksNested(t *testing.T) {
	r := NewRedactor(nil, nil)
	in := `{"role":"assistant","content":[{"type":"text","text":"deploy ghp_Q7LfA1mm"},{"type":"text","text":"LfB1nnpqrstuZk9w done"}]}`
	out, masked := r.MaskMessage([]byte(in))
	if !masked || strings.Contains(string(out), "LfB1nn") {
		t.Errorf("example: %s (%v)", out, masked)
	}
	if !strings.Contains(string(out), "done") || !strings.Contains(string(out), "deploy") {
		t.Errorf("example: the text around the secret is lost: %s", out)
	}
	nested := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"token: ghp_Q7LfA1mmLf"},{"type":"text","text":"B1nnpqrstuZk9w"}]}]}`
	out, masked = r.MaskMessage([]byte(nested))
	if !masked {
		t.Errorf("nested: masked = false: %s", out)
	}
	checkNoPiece(t, "nested", shownTexts(t, out), "ghp_Q7LfA1mmLfB1nnpqrstuZk9w")
}

// No secret across an edge: the blocks come out exactly as each is masked
// alone (what RedactMessage hands out), byte for byte.
func TestMaskMessageNoSecretAcrossBlocks(t *testing.T) {
	r := NewRedactor(nil, nil)
	for _, texts := range [][]string{
		{"hello ", "world"},
		{"key sk-abcdefghijklmnop1234 ", "and ghp_Q7LfA1mmLfB1nnpqrstuZk9w too"},
		{"API_KEY=Xy12Wv34Ut56Sr78Qp90\n", "\nnothing here", "ghp_Zz9Yy8Xx7Ww6Vv5Uu4 end"},
		{"a token ends here: sk-abcdefghijklmnop1234.", " Next sentence."},
		{"", "ghp_Q7LfA1mmLfB1nnpqrstuZk9w", ""},
	} {
		in := blocksMessage("assistant", "text", texts...)
		want, _ := r.RedactMessage([]byte(in))
		got, _ := r.MaskMessage([]byte(in))
		if string(got) != string(want) {
			t.Errorf("%q:\n got %s\nwant %s", texts, got, want)
		}
	}
}

// A split secret right after another secret (the leaf planter's shape:
// a whole token, then the two halves of the next): the first match of
// the joined run eats the next token's prefix, the two blocks of the
// edge alone still show the split one.
func TestMaskMessageSecretAcrossBlocksAfterSecret(t *testing.T) {
	r := NewRedactor(nil, nil)
	in := blocksMessage("assistant", "text", "ghp_Q7LfA0000003mmLfB0000003nnpqrstuZk9w", "ghp_Q7LfA0000001mm", "LfB0000001nnpqrstuZk9w")
	out, masked := r.MaskMessage([]byte(in))
	if !masked || strings.Contains(string(out), "LfB0000001") || strings.Contains(string(out), "LfB0000003") {
		t.Errorf("%s (%v)", out, masked)
	}
}
