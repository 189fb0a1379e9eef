// Package output prints command results: one JSON document (optionally
// filtered in-process by --jq), or a human table on a TTY and tab-separated
// lines without a header when piped.
package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
)

// JSON writes v as one indented JSON document followed by a newline.
func JSON(w io.Writer, v any) error {
	b, err := jsonx.MarshalIndent(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// CompileJQ parses and compiles a jq expression; a bad expression is a usage
// error (exit 2).
func CompileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, apperr.Usagef("invalid --jq expression: %v", err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, apperr.Usagef("invalid --jq expression: %v", err)
	}
	return code, nil
}

// JQ evaluates a compiled jq program against v (marshalled to plain JSON
// values first) and writes each result: strings raw, everything else as
// indented JSON, one per line, like `jq -r`.
func JQ(w io.Writer, code *gojq.Code, v any) error { return runJQ(w, code, v, true) }

// JQLine is JQ with every non-string result on one line (compact JSON), for
// JSON Lines output such as `history --follow --json`.
func JQLine(w io.Writer, code *gojq.Code, v any) error { return runJQ(w, code, v, false) }

// JSONLine writes v as compact JSON on one line.
func JSONLine(w io.Writer, v any) error {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return err
	}
	c.WriteByte('\n')
	_, err = w.Write(c.Bytes())
	return err
}

func runJQ(w io.Writer, code *gojq.Code, v any, indent bool) error {
	raw, err := jsonx.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var in any
	if err := dec.Decode(&in); err != nil {
		return err
	}
	in = normalizeNumbers(in)
	// each result is written as it comes, in one Write: a generator that
	// never ends (range(infinite)) prints as it goes, and an error midway
	// comes after the results before it
	iter := code.Run(in)
	var b bytes.Buffer
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			if he, ok := err.(*gojq.HaltError); ok && he.Value() == nil {
				return nil
			}
			return apperr.Errorf("--jq: %v", err)
		}
		b.Reset()
		if s, isStr := r.(string); isStr {
			b.WriteString(s)
		} else {
			marshal := jsonx.MarshalIndent
			if !indent {
				marshal = jsonx.Marshal
			}
			out, err := marshal(r)
			if err != nil {
				return err
			}
			b.Write(out)
		}
		b.WriteByte('\n')
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
}

// normalizeNumbers turns json.Number into int (when integral) or float64,
// the types gojq understands.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// TSVCell makes a value safe for one tab-separated cell: tabs and newlines
// become spaces.
func TSVCell(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

// Printf is fmt.Fprintf that ignores the count.
func Printf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
}
