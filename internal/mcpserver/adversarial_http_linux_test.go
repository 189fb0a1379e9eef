package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw/sessions/internal/mcpserver"
)

// Under a low limit of open files, connections that never show the token
// cannot keep a client with it out: the server (a child process limited
// to 64 files, its timeouts a minute) serves an authenticated call beside
// 90 such connections.
func TestAdversarialHTTPLowFileLimit(t *testing.T) {
	if os.Getenv("SESSIONS_TEST_FDLIMIT_CHILD") == "1" {
		fdLimitChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdversarialHTTPLowFileLimit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SESSIONS_TEST_FDLIMIT_CHILD=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	var url string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, found := strings.CutPrefix(sc.Text(), "serving "); found {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatalf("the child did not serve: %s", stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	addr := strings.TrimPrefix(url, "http://")
	kinds := hostileKinds(addr)
	// as found: 70 connections idle after a 401 or stalled in their body,
	// and 20 that never send a byte
	for i := 0; i < 70; i++ {
		if i%2 == 0 {
			hostile(t, addr, kinds["idle after a 401"])
		} else {
			hostile(t, addr, kinds["stalled in the body without the token"])
		}
	}
	for i := 0; i < 20; i++ {
		hostile(t, addr, "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url + mcpserver.Path, HTTPClient: &http.Client{Transport: bearer{token: testToken}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect beside 90 held connections with 64 files: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{"limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("call beside 90 held connections with 64 files: %v %v\n%s", res, err, stderr.String())
	}
}

// fdLimitChild serves with at most 64 open files until its stdin closes.
func fdLimitChild(t *testing.T) {
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
		t.Fatal(err)
	}
	s := newState(t, fixtures[0])
	url := serveLimited(t, s, mcpserver.HTTPLimits{HeaderTimeout: time.Minute, IdleTimeout: time.Minute, BodyTimeout: time.Minute})
	fmt.Println("serving " + url)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
