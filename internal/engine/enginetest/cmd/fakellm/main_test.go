package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func TestFakeLLMServesAndExitsByItself(t *testing.T) {
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "url")
	logFile := filepath.Join(dir, "log.jsonl")
	done := make(chan int, 1)
	t0 := time.Now()
	go func() {
		done <- run([]string{"--port", "0", "--api", "anthropic", "--reply", "fixed text", "--announce-skip",
			"--url-file", urlFile, "--log", logFile, "--max-seconds", "1.5"})
	}()
	url := waitFile(t, urlFile)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, "/v1") {
		t.Fatalf("url %q", url)
	}
	ask := func(system string) string {
		b, _ := json.Marshal(map[string]any{"model": "c", "max_tokens": 5, "system": system,
			"messages": []any{map[string]any{"role": "user", "content": "hi"}}})
		resp, err := http.Post(url+"/v1/messages", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var v struct {
			Content []struct{ Text string }
		}
		if json.Unmarshal(data, &v) != nil || len(v.Content) != 1 {
			t.Fatalf("response %s", data)
		}
		return v.Content[0].Text
	}
	if got := ask(""); got != "fixed text" {
		t.Errorf("reply %q", got)
	}
	if got := ask("Agent-to-agent announce step:"); got != "ANNOUNCE_SKIP" {
		t.Errorf("announce reply %q", got)
	}
	select {
	case rc := <-done:
		if rc != 0 {
			t.Errorf("exit %d", rc)
		}
		if el := time.Since(t0); el < 1400*time.Millisecond || el > 5*time.Second {
			t.Errorf("exited after %s", el)
		}
	case <-time.After(6 * time.Second):
		t.Fatal("did not exit after --max-seconds")
	}
	log, _ := os.ReadFile(logFile)
	if n := strings.Count(string(log), "\n"); n != 2 {
		t.Errorf("%d log lines:\n%s", n, log)
	}
}

func TestFakeLLMUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--api", "grpc"},
		{"--max-seconds", "0"},
		{"--fault", "explode"},
		{"--rule", "no-arrow"},
		{"extra"},
	} {
		if rc := run(args); rc != 2 {
			t.Errorf("%v: exit %d", args, rc)
		}
	}
}
