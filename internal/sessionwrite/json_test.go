package sessionwrite

import "testing"

func TestPlainJSONString(t *testing.T) {
	for s, want := range map[string]bool{"abc <&> ü": true, `a"b`: false, `a\b`: false, "a\u2028": false, "a\n": false} {
		if plainJSONString(s) != want {
			t.Errorf("plainJSONString(%q) != %v", s, want)
		}
	}
}
