package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadMessages: on any file content, reading forwards and backwards
// never panics, agrees with each other and with the reference, paging back
// with cursors gives the same messages, and only valid JSON objects are
// returned.
func FuzzReadMessages(f *testing.F) {
	files, _ := filepath.Glob(fixtureGlob)
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint8(3), false, uint8(0))
		}
	}
	f.Add([]byte(testHeader+"\r\n"+testMsgLine("a", "user", "x")+"\r\n\r\n{\"bro"), uint8(1), true, uint8(7))
	f.Add([]byte("\n\n\n"), uint8(2), false, uint8(1))
	f.Add([]byte(`{"message":{"role":"toolResult"},"message":{"role":"user"}}`), uint8(1), false, uint8(3))
	f.Add([]byte("{\"message\":{\"role\":\"user\",\"t\":\"\xff\"}}\n"+testMsgLine("b", "assistant", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy")), uint8(0), false, uint8(2))
	f.Fuzz(func(t *testing.T, content []byte, limit uint8, tools bool, shape uint8) {
		// shape picks small tunables so that every path (big lines, lines
		// spanning blocks, head probes) is reachable with small inputs.
		setTunables(t, 1+int(shape%13), 8+int(shape/13%8)*4, 4+int(shape%5), 16)
		ra := bytes.NewReader(content)
		size := int64(len(content))
		opts := Options{Limit: int(limit % 16), IncludeTools: tools}
		want, wantSkipped, wantSize := reference(content, opts)
		fwd, bwd := readBothAt(t, ra, size, opts)
		if !sameMessages(fwd.Messages, want) || fwd.Skipped != wantSkipped || fwd.Size != wantSize {
			t.Fatalf("forward differs from reference:\n%s\nwant\n%s", describe(fwd.Messages), describe(want))
		}
		if bwd != nil && (!sameMessages(bwd.Messages, want) || bwd.Size != wantSize || bwd.Skipped > fwd.Skipped) {
			t.Fatalf("backward differs:\n%s\nwant\n%s", describe(bwd.Messages), describe(want))
		}
		if opts.Limit > 0 {
			all, _, _ := reference(content, Options{IncludeTools: tools})
			if pages, _ := walk(t, content, opts); !sameMessages(pages, all) {
				t.Fatalf("pages differ:\n%s\nwant\n%s", describe(pages), describe(all))
			}
		}
		for _, m := range fwd.Messages {
			var o map[string]json.RawMessage
			if err := json.Unmarshal(m, &o); err != nil {
				t.Fatalf("message %q is not an object: %v", m, err)
			}
		}
		if _, err := leafPath(ra, size, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := lastEntryID(ra, size); err != nil {
			t.Fatal(err)
		}
		if _, err := readHeaderAt(ra, size); err != nil {
			t.Fatal(err)
		}
	})
}
