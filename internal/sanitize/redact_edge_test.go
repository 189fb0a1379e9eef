package sanitize

import (
	"strings"
	"testing"
)

// edgeText is a text over chunkThreshold characters with token placed so
// that its split-th byte is the first of the second chunk (token is ASCII,
// so bytes are UTF-16 units); pad is a character no pattern reads.
func edgeText(token string, split int) string {
	before := chunkSize - split
	return strings.Repeat("x", before-1) + " " + token + " " + strings.Repeat("y", chunkThreshold)
}

// Beyond 9.6: a secret across a 16384-character chunk edge is masked too
// (9.6 masks chunk by chunk and leaves it whole). Each token is split at
// several places, for vendor tokens and for an assignment whose key and
// value fall in different chunks.
func TestRedactAcrossChunkEdge(t *testing.T) {
	r := NewRedactor(nil, nil)
	for _, c := range []struct{ token, hidden string }{
		{"ghp_Zq7Lm2Xc9Vb4Nn1Pp8Rr5Tt0Yy3Uu6Ww2Ee", "Lm2Xc9Vb4Nn1Pp8Rr5Tt0Yy3Uu6"},
		{"sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "Cd34Ef56Gh78Ij90Kl12"},
		{"Bearer bRr7Tk0QmWx2Lp9Zs4Nd8Hy3Qq", "Tk0QmWx2Lp9Zs4Nd8Hy3"},
		{"API_KEY=Vv3Hh8Jj1Kk6Ll0Mm5Nn2Bb7Cc4", "Jj1Kk6Ll0Mm5Nn2Bb7"},
		{"OPENAI_API_KEY=\"Vv3Hh8Jj1Kk6Ll0Mm5Nn2Bb7Cc4\"", "Jj1Kk6Ll0Mm5Nn2Bb7"},
		{"--token Vv3Hh8Jj1Kk6Ll0Mm5Nn2Bb7Cc4", "Jj1Kk6Ll0Mm5Nn2Bb7"},
		{"xoxb-1234567890-Aa9Bb8Cc7Dd6Ee5Ff4Gg3", "Aa9Bb8Cc7Dd6Ee5Ff4"},
	} {
		for split := 1; split < len(c.token); split += 4 {
			in := edgeText(c.token, split)
			out, changed := r.Redact(in)
			if !changed || strings.Contains(out, c.hidden) {
				t.Errorf("%q split at %d: the secret is shown (changed %v): %q", c.token, split, changed, excerpt(out, c.hidden))
			}
		}
	}
}

// A token longer than a chunk, across two edges, is masked whole.
func TestRedactTokenOverTwoEdges(t *testing.T) {
	r := NewRedactor(nil, nil)
	tok := "ghp_" + strings.Repeat("Ab3", chunkSize/3+10)
	in := strings.Repeat("x", chunkSize-20) + " " + tok + " " + strings.Repeat("y", chunkThreshold)
	out, _ := r.Redact(in)
	if strings.Contains(out, "Ab3Ab3") {
		t.Errorf("a token over two edges is shown in part: %d of its bytes", strings.Count(out, "Ab3")*3)
	}
	if want := "ghp_Ab…3Ab3"; !strings.Contains(out, " "+want+" ") {
		t.Errorf("not masked whole as %q: %q", want, excerpt(out, "ghp_"))
	}
}

// Where nothing crosses an edge, masking is 9.6's chunk by chunk: a
// token inside a chunk is masked as there, and a chunk's start is still a
// text's start (a key at the start of the second chunk).
func TestRedactEdgePassKeepsChunkMasks(t *testing.T) {
	r := NewRedactor(nil, nil)
	// (the second token starts the second chunk exactly: both are masked in
	// the same pattern's pass, before the text's length changes)
	in := strings.Repeat("x", 100) + " ghp_abcdefghij1234567890XYZ " + strings.Repeat("y", chunkSize-129) + "ghp_klmnopqrst1234567890ABC " + strings.Repeat("z", chunkThreshold)
	want := strings.Repeat("x", 100) + " ghp_ab…0XYZ " + strings.Repeat("y", chunkSize-129) + "ghp_kl…0ABC " + strings.Repeat("z", chunkThreshold)
	if out, _ := r.Redact(in); out != want {
		t.Errorf("chunk masks changed: %q", excerpt(out, "…"))
	}
}

func excerpt(s, near string) string {
	i := strings.Index(s, near)
	if i < 0 {
		i = chunkSize - 60
	}
	return s[max(0, i-40):min(len(s), i+80)]
}
