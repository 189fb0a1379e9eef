package mcpserver_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/mcpserver"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// BenchmarkMCPListInProcess10k is a warm sessions_list on the JSON era's
// 10k store with the server in this process, over the SDK's in-memory
// transport: what a call costs the server and the client without the
// processes and pipes, for a CPU profile
// (go test -run '^$' -bench MCPListInProcess10k -cpuprofile cpu.out).
func BenchmarkMCPListInProcess10k(b *testing.B) {
	state := storegen.State(b, 10_000)
	home := b.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CACHE_HOME": filepath.Join(home, "cache")}
	getenv := func(k string) string { return vars[k] }
	srv := mcpserver.New(mcpserver.Options{ReadOnly: true,
		Ops: ops.Config{StateDir: state, Env: config.Env{Getenv: getenv, Home: home}, Getenv: getenv, Now: time.Now}})
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cs.Close(); cancel(); <-done }()
	call := func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	// a store written less than 2 s before its read is read again by the
	// next call (the cache's racy rule): warm means read after that
	time.Sleep(2100 * time.Millisecond)
	call()
	call()
	for b.Loop() {
		call()
	}
}
