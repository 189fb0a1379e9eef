//go:build unix

package searchindex

import (
	"context"
	"testing"
)

// BenchmarkBuildProgress: a whole build without and with a progress
// reader (a stat per source up front, a call per source), side by side.
func BenchmarkBuildProgress(b *testing.B) {
	srcs := bigWorld(b, b.TempDir(), 200, 300, 5)
	for _, c := range []struct {
		name string
		ctx  func() context.Context
	}{
		{"plain", context.Background},
		{"progress", func() context.Context {
			return WithProgress(context.Background(), func(Progress) {})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				ix, err := Open(b.TempDir(), "state")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ix.Update(c.ctx(), srcs); err != nil {
					b.Fatal(err)
				}
				ix.Close()
			}
		})
	}
}
