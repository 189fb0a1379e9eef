package promlite

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// HandlerErrorHandling says what a handler does when gathering or
// encoding fails: promlite answers 500 (promhttp's HTTPErrorOnError).
type HandlerErrorHandling int

// HTTPErrorOnError answers a failed gathering with status 500 and the
// error.
const HTTPErrorOnError HandlerErrorHandling = iota

// HandlerOpts are promhttp.HandlerOpts' options sessions metrics sets.
type HandlerOpts struct {
	// EnableOpenMetrics offers OpenMetrics to a scraper that asks for it.
	EnableOpenMetrics bool
	// ErrorHandling is HTTPErrorOnError, the one way promlite handles them.
	ErrorHandling HandlerErrorHandling
	// MaxRequestsInFlight answers 503 to a request beyond it (0: no limit).
	MaxRequestsInFlight int
	// Timeout answers 503 to a request not answered within it (0: none).
	Timeout time.Duration
}

var gzipPool = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// HandlerFor serves g's families as promhttp.HandlerFor does with opts:
// the format negotiated from Accept (the Prometheus text format, its
// protobuf, or OpenMetrics when enabled), gzip when Accept-Encoding asks
// for it, Vary on both, and the same status and body on a limit, a
// timeout or a failed gathering.
func HandlerFor(g Gatherer, opts HandlerOpts) http.Handler {
	var inFlight chan struct{}
	if opts.MaxRequestsInFlight > 0 {
		inFlight = make(chan struct{}, opts.MaxRequestsInFlight)
	}
	compressions := []string{"identity", "gzip"}
	h := http.HandlerFunc(func(rsp http.ResponseWriter, req *http.Request) {
		if inFlight != nil {
			select {
			case inFlight <- struct{}{}:
				defer func() { <-inFlight }()
			default:
				http.Error(rsp, fmt.Sprintf("Limit of concurrent requests reached (%d), try again later.", opts.MaxRequestsInFlight),
					http.StatusServiceUnavailable)
				return
			}
		}
		mfs, err := g.Gather()
		if err != nil {
			httpError(rsp, err)
			return
		}
		contentType := Negotiate(req.Header, opts.EnableOpenMetrics)
		rsp.Header().Add("Vary", "Accept")
		rsp.Header().Add("Vary", "Accept-Encoding")
		rsp.Header().Set("Content-Type", string(contentType))

		var w io.Writer = rsp
		switch negotiateContentEncoding(req, compressions) {
		case "gzip":
			gz := gzipPool.Get().(*gzip.Writer)
			gz.Reset(rsp)
			defer func() { _ = gz.Close(); gzipPool.Put(gz) }()
			rsp.Header().Set("Content-Encoding", "gzip")
			w = gz
		}
		enc := NewEncoder(w, contentType)
		var filter map[string]bool
		if req.URL != nil {
			if names := req.URL.Query()["name[]"]; len(names) > 0 {
				filter = map[string]bool{}
				for _, n := range names {
					filter[n] = true
				}
			}
		}
		for _, mf := range mfs {
			if filter != nil && !filter[mf.Name] {
				continue
			}
			if enc.Encode(mf) != nil {
				return
			}
		}
		_ = enc.Close()
	})
	if opts.Timeout <= 0 {
		return h
	}
	return http.TimeoutHandler(h, opts.Timeout, fmt.Sprintf("Exceeded configured timeout of %v.\n", opts.Timeout))
}

func httpError(rsp http.ResponseWriter, err error) {
	rsp.Header().Del("Content-Encoding")
	http.Error(rsp, "An error has occurred while serving metrics:\n\n"+err.Error(), http.StatusInternalServerError)
}
