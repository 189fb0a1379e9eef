// Command fakellm is a fake model provider for scripts and testscript:
// an OpenAI-compatible (POST /v1/chat/completions) or Anthropic
// (POST /v1/messages) server on 127.0.0.1 with scripted replies
// (see package enginetest for the markers and the default reply).
//
//	fakellm [--port P] [--api openai|anthropic] [--reply TEXT | --echo]
//	        [--rule 'SUBSTRING=>REPLY']... [--reply-skip] [--announce-skip]
//	        [--delay D] [--status CODE] [--error-message M] [--fault F]
//	        [--require-key K] [--url-file PATH] [--log PATH] [--max-seconds S]
//
// It prints its base URL (what models.providers.<p>.baseUrl should be) on
// stdout once it listens, writes it to --url-file too, and exits by itself
// after --max-seconds (default 300), or on SIGINT/SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/openclaw/sessions/internal/engine/enginetest"
)

type ruleFlags []enginetest.Rule

func (r *ruleFlags) String() string { return fmt.Sprint(*r) }
func (r *ruleFlags) Set(v string) error {
	c, rep, ok := strings.Cut(v, "=>")
	if !ok || c == "" {
		return errors.New("want SUBSTRING=>REPLY")
	}
	*r = append(*r, enginetest.Rule{Contains: c, Reply: rep})
	return nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	port := fs.Int("port", 0, "port on 127.0.0.1 (0: any free port)")
	api := fs.String("api", "openai", "openai | anthropic")
	reply := fs.String("reply", "", "fixed reply text (default: MOCK reply #<n>: <message>)")
	echo := fs.Bool("echo", false, "reply with the last user message")
	var rules ruleFlags
	fs.Var(&rules, "rule", "SUBSTRING=>REPLY: reply REPLY when the system prompt or last user message contains SUBSTRING (repeatable)")
	replySkip := fs.Bool("reply-skip", false, `reply "REPLY_SKIP" to agent-to-agent reply steps`)
	announceSkip := fs.Bool("announce-skip", false, `reply "ANNOUNCE_SKIP" to announce steps`)
	delay := fs.Duration("delay", 0, "wait this long before answering")
	status := fs.Int("status", 0, "answer every request with this HTTP status and an error document")
	errMsg := fs.String("error-message", "", "the error message for --status")
	fault := fs.String("fault", "", "hang | close-mid-body | non-json | empty")
	requireKey := fs.String("require-key", "", "answer 401 unless the request carries this API key")
	urlFile := fs.String("url-file", "", "write the base URL to this file once listening")
	logPath := fs.String("log", "", "append one JSON line per request to this file")
	maxSeconds := fs.Float64("max-seconds", 300, "exit after this many seconds (safety bound)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "fakellm: unexpected arguments:", fs.Args())
		return 2
	}
	if *api != enginetest.OpenAI && *api != enginetest.Anthropic {
		fmt.Fprintln(os.Stderr, "fakellm: --api must be openai or anthropic")
		return 2
	}
	if !(*maxSeconds > 0 && *maxSeconds <= 86400) {
		fmt.Fprintln(os.Stderr, "fakellm: --max-seconds must be in (0, 86400]")
		return 2
	}
	switch enginetest.Fault(*fault) {
	case enginetest.FaultNone, enginetest.FaultHang, enginetest.FaultCloseMidBody, enginetest.FaultNonJSON, enginetest.FaultEmpty:
	default:
		fmt.Fprintln(os.Stderr, "fakellm: unknown --fault", *fault)
		return 2
	}
	opts := enginetest.Options{
		Reply: *reply, Echo: *echo, Rules: rules, Delay: *delay, Status: *status,
		ErrorMessage: *errMsg, Fault: enginetest.Fault(*fault), RequireKey: *requireKey,
	}
	if *replySkip {
		opts.Rules = append(opts.Rules, enginetest.ReplySkip)
	}
	if *announceSkip {
		opts.Rules = append(opts.Rules, enginetest.AnnounceSkip)
	}
	fake := enginetest.NewFake(*api, opts)

	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(*port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		return 1
	}
	url := "http://" + ln.Addr().String()
	if *api == enginetest.OpenAI {
		url += "/v1"
	}

	var handler http.Handler = fake
	if *logPath != "" {
		lf, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakellm:", err)
			return 1
		}
		defer lf.Close()
		var mu sync.Mutex
		handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fake.ServeHTTP(w, r)
			last := fake.Last()
			line, _ := json.Marshal(map[string]any{
				"ts": time.Now().UnixMilli(), "path": last.Path, "status": last.Status,
				"system": last.System, "lastUser": last.LastUser, "reply": last.Reply, "request": last.Request,
			})
			mu.Lock()
			lf.Write(append(line, '\n'))
			mu.Unlock()
		})
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(*maxSeconds*float64(time.Second)))
	defer cancel()

	fmt.Println(url)
	if *urlFile != "" {
		tmp := *urlFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(url+"\n"), 0o644); err == nil {
			err = os.Rename(tmp, *urlFile)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakellm:", err)
			return 1
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		return 1
	case <-ctx.Done():
	}
	fake.Close()
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	return 0
}
