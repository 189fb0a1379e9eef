package state

import "testing"

func TestIsIDPrefix(t *testing.T) {
	for v, want := range map[string]bool{
		"26a610b5":                              true,
		"26A610B5":                              true,
		"26a610b5-ea74":                         true,
		"26a610b5-ea74-4c48-bd74-9be14f7f2944":  true,
		" 26a610b5 ":                            true,
		"26a610b":                               false, // 7 digits
		"26a6-10b5":                             true,  // dashes are not digits, but allowed
		"26a6-10b":                              false,
		"26a610g5":                              false,
		"main":                                  false,
		"agent:main:main":                       false,
		"26a610b5-ea74-4c48-bd74-9be14f7f29445": false, // longer than a UUID
		"":                                      false,
	} {
		if got := IsIDPrefix(v); got != want {
			t.Errorf("IsIDPrefix(%q) = %v, want %v", v, got, want)
		}
	}
}
