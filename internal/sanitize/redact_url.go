package sanitize

import (
	"net/url"
	"strings"
	"sync"

	"github.com/openclaw/sessions/internal/lazyre"
)

// Query parameters of URLs that carry credentials (?token=…, &api_key=…)
// have their value masked before the patterns run, as OpenClaw's
// redactText does (its "url" assignment pass). Keys are matched after
// dropping "+", percent-decoding (up to 8 levels), lower-casing and "-" → "_".

var urlQueryPairRE = lazyre.New(`([?&])((?:[A-Za-z_+]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_.+-]|%[0-9A-Fa-f]{2})*)=([^&#\s<>]*)`)

// sensitiveQueryKeys is SENSITIVE_URL_QUERY_PARAM_NAMES with BODY_SECRET_KEYS
// (built on first use).
var sensitiveQueryKeys = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`token key api_key apikey secret access_token auth_token password pass passwd auth jwt
		session id_token code client_secret app_secret hook_token refresh_token signature x_amz_signature
		x_amz_security_token private_key credential authorization sig x_api_key x_access_token x_auth_token
		awssecretaccesskey aws_secret_access_key secretaccesskey card_number card_cvc card_cvv cvc cvv
		security_code payment_credential shared_payment_token`) {
		m[k] = true
	}
	return m
})

var scopedTokenKeyRE = lazyre.New(`(?:^|_)token(?:_[a-f0-9]{16,})?$`)

// trailingDelimiterRE is SECRET_VALUE_TRAILING_DELIMITER_RE: closing
// punctuation after a value is kept.
var trailingDelimiterRE = lazyre.New("([\"'`,;)}\\]]+)$")

func sensitiveQueryKey(key string) bool {
	cur := strings.ReplaceAll(key, "+", "")
	for depth := 0; depth <= 8; depth++ {
		dec, err := url.PathUnescape(cur)
		if err != nil {
			return strings.Contains(cur, "%") // encoding left unresolved
		}
		dec = strings.ReplaceAll(dec, "+", "")
		if dec == cur {
			break
		}
		cur = dec
	}
	k := strings.ReplaceAll(strings.ToLower(cur), "-", "_")
	return sensitiveQueryKeys()[k] || scopedTokenKeyRE.MatchString(k)
}

// redactQueryValues masks the values of credential query parameters.
func redactQueryValues(text string) string {
	if !strings.Contains(text, "?") {
		return text
	}
	locs := urlQueryPairRE.FindAllStringSubmatchIndex(text, -1)
	var b strings.Builder
	cursor := 0
	for _, loc := range locs {
		if !sensitiveQueryKey(text[loc[4]:loc[5]]) {
			continue
		}
		start := loc[6]
		maskable, _, maskEnd := splitSecretValue(text[start:loc[7]])
		b.WriteString(text[cursor:start])
		b.WriteString(maskToken(maskable))
		cursor = start + maskEnd
	}
	if cursor == 0 {
		return text
	}
	b.WriteString(text[cursor:])
	return b.String()
}
