package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// devtools drives one headless Chromium over its DevTools protocol on a
// pipe (--remote-debugging-pipe: it reads commands on fd 3 and writes
// answers and events on fd 4, each a JSON document ending in a NUL byte),
// the protocol's plainest transport: no port, no client library.
type devtools struct {
	t   *testing.T
	cmd *exec.Cmd
	w   *os.File

	mu      sync.Mutex
	id      int
	waiting map[int]chan cdpReply
	events  []cdpEvent
	closed  chan struct{}
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type cdpEvent struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// startDevtools starts Chromium on about:blank with the pipe.
func startDevtools(t *testing.T) *devtools {
	t.Helper()
	toChrome, ourW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ourR, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profileDir(t), "--remote-debugging-pipe", "about:blank"}
	cmd := exec.Command(chromium, args...)
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fd 3, fd 4
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	d := &devtools{t: t, cmd: cmd, w: ourW, waiting: map[int]chan cdpReply{}, closed: make(chan struct{})}
	go d.read(ourR)
	t.Cleanup(func() {
		// Closing the pipe asks the browser to shut down with its helper
		// processes; killed only when it does not within 10 s.
		ourW.Close()
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		ourR.Close()
	})
	return d
}

func (d *devtools) read(r *os.File) {
	defer close(d.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpReply
			cdpEvent
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		d.mu.Lock()
		if m.ID != 0 {
			if ch := d.waiting[m.ID]; ch != nil {
				ch <- m.cdpReply
				delete(d.waiting, m.ID)
			}
		} else if m.Method != "" {
			d.events = append(d.events, m.cdpEvent)
		}
		d.mu.Unlock()
	}
}

// call sends method with params (to the page's session when session is
// set) and returns its result; a protocol error fails the test.
func (d *devtools) call(session, method string, params any) json.RawMessage {
	d.t.Helper()
	d.mu.Lock()
	d.id++
	id := d.id
	ch := make(chan cdpReply, 1)
	d.waiting[id] = ch
	d.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if _, err := d.w.Write(append(b, 0)); err != nil {
		d.t.Fatalf("devtools %s: %v", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			d.t.Fatalf("devtools %s: %s", method, r.Error.Message)
		}
		return r.Result
	case <-d.closed:
		d.t.Fatalf("devtools %s: the browser went away", method)
	case <-time.After(time.Minute):
		d.t.Fatalf("devtools %s: no answer in a minute", method)
	}
	return nil
}

// eventsNamed are the events of that method seen so far.
func (d *devtools) eventsNamed(method string) []cdpEvent {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []cdpEvent
	for _, e := range d.events {
		if e.Method == method {
			out = append(out, e)
		}
	}
	return out
}

// page attaches to the browser's page and returns its session.
func (d *devtools) page() string {
	d.t.Helper()
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	deadline := time.Now().Add(time.Minute)
	for {
		json.Unmarshal(d.call("", "Target.getTargets", map[string]any{}), &targets)
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" {
				var at struct {
					SessionID string `json:"sessionId"`
				}
				json.Unmarshal(d.call("", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}), &at)
				return at.SessionID
			}
		}
		if time.Now().After(deadline) {
			d.t.Fatal("devtools: no page target")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eval evaluates expr in the page (DevTools' own evaluation, which the
// page's policy does not govern) and returns its value as JSON.
// open loads file in a new page with the network, the log and the page's
// events recorded, and returns the page's session once it has loaded.
func (d *devtools) open(t *testing.T, file string) string {
	t.Helper()
	s := d.page()
	d.call(s, "Network.enable", map[string]any{})
	d.call(s, "Log.enable", map[string]any{})
	d.call(s, "Page.enable", map[string]any{})
	d.call(s, "Page.navigate", map[string]any{"url": "file://" + file})
	deadline := time.Now().Add(time.Minute)
	for d.eval(s, `document.readyState`) != `"complete"` {
		if time.Now().After(deadline) {
			t.Fatal("the page did not load in a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

func (d *devtools) eval(session, expr string) string {
	d.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	json.Unmarshal(d.call(session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
	if r.ExceptionDetails != nil {
		d.t.Fatalf("eval %q: %s", expr, r.ExceptionDetails)
	}
	return string(r.Result.Value)
}

// The page as a person uses it: the collapsed thinking, tool calls and
// results start closed and open when their summary is clicked (a real
// click, dispatched by the browser's input at the summary's position),
// showing their text; the page itself runs no script, and no request
// leaves it while it is used.
func TestHTMLDetailsOpenOnClick(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium + " (apt-get install chromium): the page is not opened in a browser")
	}
	rec := newRecorder(t)
	file := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(file, []byte(renderHTML(t, hostileMessages(rec.url), nil)), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDevtools(t)
	s := d.open(t, file)

	n := 0
	fmt.Sscan(d.eval(s, `document.querySelectorAll("details").length`), &n)
	if n < 3 {
		t.Fatalf("%d collapsed blocks, want thinking, tool call and result", n)
	}
	if open := d.eval(s, `document.querySelectorAll("details[open]").length`); open != "0" {
		t.Fatalf("%s blocks start open, want all collapsed", open)
	}
	for i := 0; i < n; i++ {
		// Where the summary is, scrolled into view; then a real mouse click there.
		var box struct {
			X, Y float64
			V    bool
		}
		json.Unmarshal([]byte(d.eval(s, fmt.Sprintf(`(() => { const el = document.querySelectorAll("details")[%d];
			el.scrollIntoView({block: "center"}); const r = el.querySelector("summary").getBoundingClientRect();
			return {X: r.x + Math.min(r.width/2, 20), Y: r.y + r.height/2, V: el.querySelector("pre").checkVisibility()}; })()`, i))), &box)
		if box.V {
			t.Fatalf("block %d shows its text before it is opened: %s", i, d.eval(s, fmt.Sprintf(`(() => { const el = document.querySelectorAll("details")[%d]; return [el.open, matchMedia("print").matches, getComputedStyle(el.querySelector("pre")).display, el.outerHTML.slice(0, 300)]; })()`, i)))
		}
		for _, typ := range []string{"mousePressed", "mouseReleased"} {
			d.call(s, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": box.X, "y": box.Y, "button": "left", "clickCount": 1})
		}
		got := d.eval(s, fmt.Sprintf(`(() => { const el = document.querySelectorAll("details")[%d];
			return el.open && el.querySelector("pre").checkVisibility(); })()`, i))
		if got != "true" {
			t.Errorf("block %d (%s) does not open on a click", i, d.eval(s, fmt.Sprintf(`document.querySelectorAll("details")[%d].className`, i)))
		}
	}
	if title := d.eval(s, `document.title`); strings.Contains(title, "PWNED") {
		t.Errorf("the transcript's script ran: title %s", title)
	}
	if reqs := rec.requests(); len(reqs) != 0 {
		t.Errorf("the page made requests: %v", reqs)
	}
	for _, e := range d.eventsNamed("Network.requestWillBeSent") {
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(e.Params, &p)
		if !strings.HasPrefix(p.Request.URL, "file://") && !strings.HasPrefix(p.Request.URL, "data:") {
			t.Errorf("the page asked for %s", p.Request.URL)
		}
	}
	for _, e := range d.eventsNamed("Log.entryAdded") {
		if cspRe.Match(e.Params) {
			t.Errorf("a policy violation: %s", e.Params)
		}
	}
}
