package attach

import (
	"context"
	"fmt"
)

// aside runs f in a goroutine of its own and returns what it returns,
// or, as soon as ctx is done, the cause of ctx, "before" what was
// waited for, leaving f behind: reading files and /proc can block (a
// process that holds its memory map lock, a hung network file system, a
// named pipe), and a signal must still end the caller.
func aside[T any](ctx context.Context, before string, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w before %s", context.Cause(ctx), before)
	}
}
