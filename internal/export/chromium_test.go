package export

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromium is Debian's headless Chromium, the browser the HTML page is
// checked in.
const chromium = "/usr/bin/chromium"

// recorder is a local HTTP server that counts every request: one the page
// made would be a request leaving it.
type recorder struct {
	mu   sync.Mutex
	hits []string
	url  string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		r.mu.Lock()
		r.hits = append(r.hits, q.URL.Path)
		r.mu.Unlock()
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	r.url = "http://" + ln.Addr().String()
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.hits...)
}

// profileDir is a Chromium profile dir for one test, removed after it:
// Chromium's helper processes (its crash handler, a renderer) may still be
// writing there for a moment after the browser itself has exited, which
// t.TempDir's single removal fails the test for.
func profileDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sessions-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := os.RemoveAll(dir)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Logf("chromium's profile dir %s not removed: %v", dir, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}

// browse opens file in headless Chromium with its console on stderr and
// returns the DOM it ends with and the log; with shot, a screenshot at
// width×height is written there too.
func browse(t *testing.T, file string, extra ...string) (dom, log string) {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profileDir(t), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000"}
	args = append(append(args, extra...), "file://"+file)
	cmd := exec.Command(chromium, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, errb.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("chromium did not finish in 2 minutes")
	}
	return out.String(), errb.String()
}

var cspRe = regexp.MustCompile(`(?i)content security policy`)

// artifacts is where the screenshots are kept: $SESSIONS_TEST_ARTIFACTS,
// else the test's temporary directory.
func artifacts(t *testing.T) string {
	if d := os.Getenv("SESSIONS_TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// The page of a hostile transcript, opened in a real browser: every
// message is in the DOM, nothing the transcript holds runs, no request
// leaves the page, the policy is never violated (the page's own style
// sheet is allowed by its hash); a screenshot at desktop and phone width
// is kept.
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium + " (apt-get install chromium): the page is not opened in a browser")
	}
	rec := newRecorder(t)
	msgs := hostileMessages(rec.url)
	dir := t.TempDir()
	file := filepath.Join(dir, "hostile.html")
	if err := os.WriteFile(file, []byte(renderHTML(t, msgs, nil)), 0o600); err != nil {
		t.Fatal(err)
	}

	// The controls: the same harness notices a request, a script that
	// runs, and a policy violation when a page has them.
	ctl := filepath.Join(dir, "control.html")
	os.WriteFile(ctl, []byte(`<!DOCTYPE html><html><head><title>t</title></head><body><img src="`+rec.url+`/control.png"><script>document.title='RAN'</script></body></html>`), 0o600)
	cdom, _ := browse(t, ctl, "--dump-dom")
	if !strings.Contains(cdom, "<title>RAN</title>") || len(rec.requests()) == 0 {
		t.Fatalf("control: the harness does not see a script run (%v) or a request (%v)", strings.Contains(cdom, "RAN"), rec.requests())
	}
	os.WriteFile(ctl, []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="`+CSP()+`"></head><body><img src="`+rec.url+`/blocked.png"></body></html>`), 0o600)
	if _, clog := browse(t, ctl, "--dump-dom"); len(cspRe.FindAllString(clog, -1)) == 0 {
		t.Fatal("control: a blocked request is not logged as a policy violation")
	}
	before := len(rec.requests())

	dom, log := browse(t, file, "--dump-dom")
	for i := range msgs {
		if !strings.Contains(dom, fmt.Sprintf(`id="m%d"`, i+1)) {
			t.Errorf("message %d is not in the DOM", i+1)
		}
	}
	if strings.Contains(dom, "PWNED") && !strings.Contains(dom, "&lt;") || strings.Contains(dom, "<title>PWNED") {
		t.Error("the transcript's script ran")
	}
	checkPage(t, dom[strings.Index(dom, "<body>"):])
	if n := strings.Count(dom, "<details"); n < 3 {
		t.Errorf("%d collapsed blocks, want thinking, tool call and result collapsed", n)
	}
	if v := cspRe.FindAllString(log, -1); len(v) != 0 {
		t.Errorf("%d policy violations:\n%s", len(v), log)
	}
	if got := rec.requests()[before:]; len(got) != 0 {
		t.Errorf("the page made requests: %v", got)
	}

	art := artifacts(t)
	for _, s := range []struct{ name, size string }{{"desktop", "1280,2400"}, {"phone", "390,2400"}} {
		shot := filepath.Join(art, "export-hostile-"+s.name+".png")
		os.Remove(shot)
		browse(t, file, "--screenshot="+shot, "--window-size="+s.size, "--hide-scrollbars")
		if fi, err := os.Stat(shot); err != nil || fi.Size() < 1000 {
			t.Errorf("no %s screenshot: %v", s.name, err)
		} else {
			t.Logf("screenshot: %s", shot)
		}
	}
	if got := rec.requests()[before:]; len(got) != 0 {
		t.Errorf("the page made requests while screenshotted: %v", got)
	}
}
