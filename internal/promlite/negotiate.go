// Accept-Encoding negotiation, as promhttp does it: adapted from
// github.com/golang/gddo's httputil (NegotiateContentEncoding and
// header.ParseAccept), which client_golang carries as an internal copy.
// Copyright 2013 The Go Authors. All rights reserved. Use of this source
// code is governed by a BSD-style license
// (https://developers.google.com/open-source/licenses/bsd). Changed: the
// octet table of its initialiser is two functions.

package promlite

import (
	"net/http"
	"strings"
)

func isSpaceOctet(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isTokenOctet(c byte) bool {
	return c > 31 && c < 127 && !strings.ContainsRune(" \t\"(),/:;<=>?@[]\\{}", rune(c))
}

type acceptSpec struct {
	value string
	q     float64
}

// negotiateContentEncoding returns the best offered content encoding for
// the request's Accept-Encoding header. If two offers match with equal
// weight, the offer earlier in the list is preferred; "" when none is
// acceptable.
func negotiateContentEncoding(r *http.Request, offers []string) string {
	bestOffer := "identity"
	bestQ := -1.0
	specs := parseAccept(r.Header, "Accept-Encoding")
	for _, offer := range offers {
		for _, spec := range specs {
			if spec.q > bestQ && (spec.value == "*" || spec.value == offer) {
				bestQ = spec.q
				bestOffer = offer
			}
		}
	}
	if bestQ == 0 {
		bestOffer = ""
	}
	return bestOffer
}

func parseAccept(header http.Header, key string) (specs []acceptSpec) {
loop:
	for _, s := range header[key] {
		for {
			var spec acceptSpec
			spec.value, s = expectTokenSlash(s)
			if spec.value == "" {
				continue loop
			}
			spec.q = 1.0
			s = skipSpace(s)
			if strings.HasPrefix(s, ";") {
				s = skipSpace(s[1:])
				if !strings.HasPrefix(s, "q=") {
					continue loop
				}
				spec.q, s = expectQuality(s[2:])
				if spec.q < 0.0 {
					continue loop
				}
			}
			specs = append(specs, spec)
			s = skipSpace(s)
			if !strings.HasPrefix(s, ",") {
				continue loop
			}
			s = skipSpace(s[1:])
		}
	}
	return specs
}

func skipSpace(s string) (rest string) {
	i := 0
	for ; i < len(s); i++ {
		if !isSpaceOctet(s[i]) {
			break
		}
	}
	return s[i:]
}

func expectTokenSlash(s string) (token, rest string) {
	i := 0
	for ; i < len(s); i++ {
		b := s[i]
		if !isTokenOctet(b) && b != '/' {
			break
		}
	}
	return s[:i], s[i:]
}

func expectQuality(s string) (q float64, rest string) {
	switch {
	case len(s) == 0:
		return -1, ""
	case s[0] == '0':
		q = 0
	case s[0] == '1':
		q = 1
	default:
		return -1, ""
	}
	s = s[1:]
	if !strings.HasPrefix(s, ".") {
		return q, s
	}
	s = s[1:]
	i := 0
	n := 0
	d := 1
	for ; i < len(s); i++ {
		b := s[i]
		if b < '0' || b > '9' {
			break
		}
		n = n*10 + int(b) - '0'
		d *= 10
	}
	return q + float64(n)/float64(d), s[i:]
}
