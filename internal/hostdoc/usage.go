package hostdoc

import (
	"bytes"
	"encoding/json"
)

// UsageSchemaVersion is the version of the usage document.
const UsageSchemaVersion = 1

// UsageTotals are the sums of a row: messages, tokens, cost.
type UsageTotals struct {
	Messages   int64 `json:"messages"`
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheRead  int64 `json:"cacheReadTokens"`
	CacheWrite int64 `json:"cacheWriteTokens"`
	Total      int64 `json:"totalTokens"`
	// CostUSD is CostMicroUSD / 1e6, for reading; CostMicroUSD is exact.
	CostUSD      float64 `json:"costUsd"`
	CostMicroUSD int64   `json:"costMicroUsd"`
	// CostComputed counts the messages whose cost was computed from the
	// model's configured cost (OpenClaw recorded none); CostUnknown those
	// with neither (counted as 0).
	CostComputed int64 `json:"costComputedMessages"`
	CostUnknown  int64 `json:"costUnknownMessages"`
}

// UsageRow is one row of the document: its dimension values, then its sums.
type UsageRow struct {
	By     []string
	Keys   []string
	Totals UsageTotals
}

// MarshalJSON writes the dimensions first, in By order, then the sums.
func (r UsageRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, d := range r.By {
		k, _ := json.Marshal(d)
		v, _ := json.Marshal(r.Keys[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
		b.WriteByte(',')
	}
	t, err := json.Marshal(r.Totals)
	if err != nil {
		return nil, err
	}
	b.Write(t[1:])
	return b.Bytes(), nil
}

// UsageFiles says how many transcript files (or stores) were read and how
// many came from the cache.
type UsageFiles struct {
	Total  int `json:"total"`
	Read   int `json:"read"`
	Cached int `json:"cached"`
}

// UsageResult is the document of `sessions usage --json`.
type UsageResult struct {
	SchemaVersion int         `json:"schema_version"`
	By            []string    `json:"by"`
	Since         string      `json:"since,omitempty"`
	Until         string      `json:"until,omitempty"`
	Count         int         `json:"count"`
	Rows          []UsageRow  `json:"rows"`
	Totals        UsageTotals `json:"totals"`
	Files         UsageFiles  `json:"files"`
}
