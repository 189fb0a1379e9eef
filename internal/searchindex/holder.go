package searchindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The index's lock file says who holds it: the process that takes the
// write lock writes its pid and what it is doing into the file ("1234
// background"), and empties it before it lets go. Only a reader that found
// the lock held reads it (Holder), so what it reads is the holder's — or
// nothing, in the moment between a holder's taking the lock and writing
// it, or from a process that cannot write there (a read-only cache dir).

type holderKey struct{}

// WithHolder returns a context under which an Update (or Reset) that
// takes the index's lock says what it is (one word: "background" for the
// build a search starts in the background), for Holder.
func WithHolder(ctx context.Context, what string) context.Context {
	return context.WithValue(ctx, holderKey{}, what)
}

type lockWaitKey struct{}

// WithLockWait returns a context under which Update, Reset and Remove wait
// at most d for another process's lock (then ErrBusy), while the update
// itself runs until ctx is done: a foreground update bounded by
// --lock-timeout for the lock, by Ctrl-C for its work.
func WithLockWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, d)
}

// lockContext is ctx bounded by its lock wait, for taking the lock.
func lockContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Value(lockWaitKey{}).(time.Duration); ok && d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// writeHolder records this process as the holder of the lock at path.
func writeHolder(ctx context.Context, path string) {
	what, _ := ctx.Value(holderKey{}).(string)
	if what == "" {
		what = "update"
	}
	_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+" "+what+"\n"), 0o600)
}

// clearHolder empties the lock file before the lock is let go.
func clearHolder(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
		f.Close()
	}
}

// LockHolder is who holds an index's write lock, as it said (Holder).
type LockHolder struct {
	PID int
	// What: "background" (a build a search started in the background),
	// "update" (sessions index --update or --rebuild, a search's catch-up),
	// "remove" (sessions index --remove).
	What string
}

// String is the holder in words: "pid 1234, a build a search started in
// the background".
func (h LockHolder) String() string {
	what := map[string]string{
		"background": "a build a search started in the background",
		"update":     "an update",
		"remove":     "a removal",
	}[h.What]
	if what == "" {
		what = h.What
	}
	return fmt.Sprintf("pid %d, %s", h.PID, what)
}

// Holder is who holds the write lock of the index in dir (Status.Dir), as
// the holder wrote it; false when no one does or it did not say.
func Holder(dir string) (LockHolder, bool) {
	if !Updating(dir) {
		return LockHolder{}, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "lock"))
	if err != nil {
		return LockHolder{}, false
	}
	pid, what, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	n, err := strconv.Atoi(pid)
	if !ok || err != nil || n <= 0 || what == "" {
		return LockHolder{}, false
	}
	return LockHolder{PID: n, What: what}, true
}
