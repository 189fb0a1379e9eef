package runs

import "testing"

func TestSelect(t *testing.T) {
	recs := []*Record{
		{RunID: "r1", Kind: KindSpawn, Status: StatusOK, Target: Session{Key: "agent:main:a", SessionID: "ABC"}},
		{RunID: "r2", Kind: "send", Status: StatusOK, Target: Session{Key: "agent:main:b"}, Requester: &Session{Key: "agent:main:a"}},
		{RunID: "r3", Kind: KindSpawn, Status: StatusTimeout, Target: Session{Key: "agent:main:c", DisplayKey: "c"}},
		{RunID: "r4", Kind: KindSpawn, Status: StatusOK, Target: Session{Key: "agent:main:d"}},
	}
	ids := func(rs []*Record) (out []string) {
		for _, r := range rs {
			out = append(out, r.RunID)
		}
		return out
	}
	for _, tc := range []struct {
		f     Filter
		want  string
		total int
	}{
		{Filter{Limit: -1}, "[r1 r2 r3 r4]", 4},
		{Filter{Limit: 2}, "[r1 r2]", 4},
		{Filter{Status: StatusOK, Limit: -1}, "[r1 r2 r4]", 3},
		{Filter{Session: "agent:main:a", Limit: -1}, "[r1 r2]", 2},
		{Filter{Session: "abc", Limit: -1}, "[r1]", 1},
		{Filter{Session: "c", Limit: -1}, "[r3]", 1},
		{Filter{SpawnOnly: true, Limit: 1}, "[r1]", 3},
		{Filter{Limit: 0}, "[]", 4},
	} {
		shown, total := Select(recs, tc.f)
		if got := fmtIDs(ids(shown)); got != tc.want || total != tc.total {
			t.Errorf("%+v: %s of %d, want %s of %d", tc.f, got, total, tc.want, tc.total)
		}
	}
}

func fmtIDs(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
