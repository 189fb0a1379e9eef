package cells

import (
	"testing"
	"time"
)

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago",
		47 * time.Hour: "47h ago", 49 * time.Hour: "2d ago",
	} {
		if got := Ago(d); got != want {
			t.Errorf("Ago(%s) = %q, want %q", d, got, want)
		}
	}
	now := time.UnixMilli(10 * 3600 * 1000)
	ms := float64(now.Add(-2 * time.Hour).UnixMilli())
	if got := AgoMs(&ms, now); got != "2h ago" {
		t.Errorf("AgoMs = %q", got)
	}
	if got := AgoMs(nil, now); got != "-" {
		t.Errorf("AgoMs(nil) = %q", got)
	}
}

func TestTokens(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		total, ctx *float64
		want       string
	}{
		{nil, nil, "-"}, {f(0), f(128000), "-"}, {f(6100), nil, "6.1k"},
		{f(5800), f(128000), "5.8k/128k (4%)"}, {f(50000), f(1000), "50k/1.0k (999%)"},
	} {
		if got := Tokens(c.total, c.ctx); got != c.want {
			t.Errorf("Tokens(%v, %v) = %q, want %q", c.total, c.ctx, got, c.want)
		}
	}
}
