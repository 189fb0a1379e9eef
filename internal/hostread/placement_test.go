package hostread

import (
	"context"
	"reflect"
	"strings"
	"testing"

	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/searchindex"
)

// A search of everything places the sources with candidates by where the
// index's last update saw them (placeByPosition), instead of a SourceID
// made and looked up per source (placeByID): the same placement, for
// sources OpenClaw's own index answers, sources the update could not
// read, sources the scan must answer (Result.Scan) and a source given
// twice (both placed, as the scan reads it twice).
func TestPlacementByPositionIsByID(t *testing.T) {
	const needle = "zqxplace17"
	s := indexedState(t, needle)
	all, err := indexSources(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// agent:main:main's transcript twice (the listing never hands over
	// two sources of one id, but a slice that did would be searched twice)
	for i := range all {
		if strings.Contains(all[i].Path, "c040fd20-0a1c-4ce0-924c-6e695a32eecb") {
			all = append(all, all[i])
			break
		}
	}
	ix, err := openIndex(s, &SearchIndex{CacheDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	m, err := srch.Compile(srch.Query{Pattern: needle})
	if err != nil {
		t.Fatal(err)
	}
	pos, ok := ix.Positions(all)
	if !ok {
		t.Fatal("no positions for the slice the index was just brought up to date over")
	}
	if _, ok := ix.Positions(append([]srch.Source(nil), all...)); ok {
		t.Fatal("positions for a copy of the slice: the index cannot know it is unchanged")
	}
	twins := 0
	var ids []string
	for i := range all {
		ids = append(ids, string(searchindex.AppendSourceID(nil, &all[i])))
	}
	for i, id := range ids {
		var at []int
		pos.Each(id, func(j int) { at = append(at, j) })
		if len(at) == 0 || !reflect.DeepEqual(at, slicesIndexAll(ids, id)) {
			t.Fatalf("source %d (%s): positions %v", i, id, at)
		}
		if len(at) > 1 {
			twins++
		}
	}
	if twins == 0 {
		t.Fatal("no two sources name one transcript: the test does not test duplicates")
	}

	for _, tools := range []bool{false, true} {
		o := &srch.Options{Matcher: m, IncludeTools: tools}
		cands, err := ix.Candidates(srch.Query{Pattern: needle}, searchindex.Filter{IncludeTools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if len(cands.Sources) == 0 {
			t.Fatal("no candidates")
		}
		for _, c := range []struct {
			name   string
			failed []string
			scan   []string
			index  []int
		}{
			{name: "plain"},
			{name: "failed", failed: []string{ids[0], ids[len(ids)-1], "file\x00/nowhere.jsonl"}},
			{name: "scan", scan: []string{ids[1]}},
			{name: "OpenClaw's index", index: []int{0, 2}},
			{name: "all of them", failed: []string{ids[2]}, scan: []string{ids[0]}, index: []int{1}},
		} {
			srcs := append([]srch.Source(nil), all...)
			for _, i := range c.index {
				srcs[i].Index = true
			}
			// the same slice the index knows, its flags set for this case
			copy(all, srcs)
			cs := *cands
			if len(c.scan) > 0 {
				cs.Scan = map[string]bool{}
				for _, id := range c.scan {
					cs.Scan[id] = true
				}
			}
			wantW, wantS := placeByID(all, all, true, o, &cs, c.failed)
			gotW, gotS := placeByPosition(all, o, &cs, c.failed, pos)
			if !reflect.DeepEqual(gotW, wantW) || !reflect.DeepEqual(gotS, wantS) {
				t.Errorf("tools %v, %s: by position want %v scan %v; by id want %v scan %v", tools, c.name, keysOf(gotW), gotS, keysOf(wantW), wantS)
			}
			for i := range all {
				all[i].Index = false
			}
		}
	}
}

func slicesIndexAll(ids []string, id string) []int {
	var at []int
	for i, x := range ids {
		if x == id {
			at = append(at, i)
		}
	}
	return at
}

func keysOf[V any](m map[int]V) []int {
	var k []int
	for i := range m {
		k = append(k, i)
	}
	return k
}
