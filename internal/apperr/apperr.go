// Package apperr defines the typed errors every layer returns and the exit
// codes of CONTRACT §4. Only internal/cli turns them into output and an exit
// status; domain packages just return them.
package apperr

import (
	"errors"
	"fmt"
)

// Exit codes (CONTRACT §4). Unknown codes mean failure.
const (
	CodeOK        = 0
	CodeError     = 1
	CodeUsage     = 2
	CodeForbidden = 3
	CodeNotFound  = 4
	CodeTimeout   = 5
	CodeState     = 10
	CodeLock      = 11
)

// Error is an error with an exit code and the JSON status word that goes
// with it ("error" or "forbidden").
type Error struct {
	Code   int
	Status string // "error" | "forbidden" | "timeout"
	Msg    string
	Err    error // optional cause, for errors.Is/As
	// Extra fields merged into the JSON error document (e.g. runId, sessionKey).
	Extra map[string]any
	// Printed: the command already wrote its one JSON document (a report
	// whose outcome is a non-zero exit, e.g. doctor's findings, a fleet
	// listing with a failed host); only the message, if any, goes to stderr.
	Printed bool
}

// Reported is the exit of a command whose output already said everything
// (e.g. the per-host errors of a fleet listing): nothing more is printed.
func Reported(code int) *Error { return &Error{Code: code, Status: "error", Printed: true} }

// AfterOutput returns a copy of e marked Printed.
func (e *Error) AfterOutput() *Error {
	c := *e
	c.Printed = true
	return &c
}

func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

func newf(code int, status, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Status: status, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// Errorf: a general failure (exit 1).
func Errorf(format string, args ...any) *Error { return newf(CodeError, "error", format, args...) }

// Usagef: bad flags or arguments (exit 2).
func Usagef(format string, args ...any) *Error { return newf(CodeUsage, "error", format, args...) }

// Forbiddenf: refused by a policy (exit 3). Messages are OpenClaw's own where
// it has one.
func Forbiddenf(format string, args ...any) *Error {
	return newf(CodeForbidden, "forbidden", format, args...)
}

// NotFoundf: an unknown session, run or agent (exit 4).
func NotFoundf(format string, args ...any) *Error {
	return newf(CodeNotFound, "error", format, args...)
}

// Timeoutf: gave up waiting (exit 5).
func Timeoutf(format string, args ...any) *Error {
	return newf(CodeTimeout, "timeout", format, args...)
}

// Statef: the state dir or a file is missing, unreadable, corrupt or
// unsupported (exit 10).
func Statef(format string, args ...any) *Error { return newf(CodeState, "error", format, args...) }

// Lockf: a lock was not acquired in time (exit 11).
func Lockf(format string, args ...any) *Error { return newf(CodeLock, "error", format, args...) }

// CodeOf returns the exit code for err: the code of the first *Error in its
// chain, else 1.
func CodeOf(err error) int {
	if err == nil {
		return CodeOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeError
}

// StatusOf returns the JSON status word for err ("error" unless typed).
func StatusOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Status != "" {
		return e.Status
	}
	return "error"
}

// With returns a copy of e carrying an extra JSON field.
func (e *Error) With(key string, v any) *Error {
	c := *e
	c.Extra = map[string]any{}
	for k, x := range e.Extra {
		c.Extra[k] = x
	}
	c.Extra[key] = v
	return &c
}

// Wrap returns a copy of e whose cause is err (for errors.Is).
func (e *Error) Wrap(err error) *Error {
	c := *e
	c.Err = err
	return &c
}
