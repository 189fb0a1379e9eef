package export

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// goldenPages are the golden HTML exports of the real 2026.1.30 and
// 2026.9.6 fixtures (e2e's export_formats script compares the command's
// output with them byte for byte), with the number of messages their JSON
// golden holds.
func goldenPages(t *testing.T) map[string]int {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "e2e", "testdata", "script", "export_formats.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	out := map[string]int{}
	for _, fx := range []string{"130", "96"} {
		var doc struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(files["want/"+fx+"-main.json"], &doc); err != nil || len(doc.Messages) == 0 {
			t.Fatalf("want/%s-main.json: %v", fx, err)
		}
		page := files["want/"+fx+"-main.html"]
		if len(page) == 0 {
			t.Fatalf("no want/%s-main.html", fx)
		}
		file := filepath.Join(t.TempDir(), fx+"-main.html")
		if err := os.WriteFile(file, page, 0o600); err != nil {
			t.Fatal(err)
		}
		out[file] = len(doc.Messages)
	}
	return out
}

// The golden exports of both fixtures, opened in a real browser as a
// person opens the file: every message of the conversation is in the
// DOM, the tool calls and results start collapsed (and are shown when the
// page is printed), the browser asks for nothing but the file itself and
// logs no policy violation; a screenshot at desktop and phone width is
// kept.
func TestGoldenExportsInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium + " (apt-get install chromium): the page is not opened in a browser")
	}
	art := artifacts(t)
	for file, n := range goldenPages(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".html")
		t.Run(name, func(t *testing.T) {
			d := startDevtools(t)
			s := d.open(t, file)
			if got := d.eval(s, `document.querySelectorAll("article.msg").length`); got != fmt.Sprint(n) {
				t.Errorf("%s messages in the DOM, want %d", got, n)
			}
			for i := 1; i <= n; i++ {
				if d.eval(s, fmt.Sprintf(`!!document.getElementById("m%d")`, i)) != "true" {
					t.Errorf("message %d is not in the DOM", i)
				}
			}
			calls := d.eval(s, `document.querySelectorAll("details.call, details.result").length`)
			if calls == "0" {
				t.Error("no collapsed tool call or result")
			}
			if open := d.eval(s, `document.querySelectorAll("details[open]").length`); open != "0" {
				t.Errorf("%s blocks start open", open)
			}
			hidden := `Array.from(document.querySelectorAll("details pre")).filter(p => !p.checkVisibility()).length`
			if d.eval(s, hidden) == "0" {
				t.Error("the collapsed blocks show their text on screen")
			}
			d.call(s, "Emulation.setEmulatedMedia", map[string]any{"media": "print"})
			if got := d.eval(s, hidden); got != "0" {
				t.Errorf("printed, %s collapsed blocks leave their text out", got)
			}
			d.call(s, "Emulation.setEmulatedMedia", map[string]any{"media": ""})
			for _, e := range d.eventsNamed("Network.requestWillBeSent") {
				var p struct {
					Request struct {
						URL string `json:"url"`
					} `json:"request"`
				}
				json.Unmarshal(e.Params, &p)
				if p.Request.URL != "file://"+file {
					t.Errorf("the page asked for %.200s", p.Request.URL)
				}
			}
			for _, e := range d.eventsNamed("Log.entryAdded") {
				if cspRe.Match(e.Params) {
					t.Errorf("a policy violation: %s", e.Params)
				}
			}
			for _, sz := range []struct{ name, size string }{{"desktop", "1280,2400"}, {"phone", "390,2400"}} {
				shot := filepath.Join(art, "export-"+name+"-"+sz.name+".png")
				os.Remove(shot)
				browse(t, file, "--screenshot="+shot, "--window-size="+sz.size, "--hide-scrollbars")
				if fi, err := os.Stat(shot); err != nil || fi.Size() < 1000 {
					t.Errorf("no %s screenshot: %v", sz.name, err)
				} else {
					t.Logf("screenshot: %s", shot)
				}
			}
		})
	}
}
