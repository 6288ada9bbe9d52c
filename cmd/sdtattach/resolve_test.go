package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Reading a --types file that is a named pipe without a writer blocks;
// resolve gives up on it when its context is done, as on a signal.
func TestResolveCanceled(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "types.d")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := probespec.Parse(demo + ":demo:tick")
	if err != nil {
		t.Fatal(err)
	}
	c := &config{typesFile: fifo, specs: []probespec.Spec{spec}}
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := resolve(ctx, c)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel(errors.New("terminated signal received"))
	select {
	case err := <-done:
		if want := "terminated signal received before anything was attached"; err == nil || err.Error() != want {
			t.Errorf("resolve = %v, want %s", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("resolve does not return once its context is done")
	}
}

// When the search for the processes that map the files is cut short by a
// signal, --attach-only fails instead of printing a summary without them.
func TestAttachOnlyInterrupted(t *testing.T) {
	pids := make(chan []int)
	close(pids)
	var stdout strings.Builder
	err := attachOnly(&config{attachOnly: true}, &stdout, &attach.Plan{}, pids)
	if err == nil || stdout.Len() > 0 {
		t.Errorf("attachOnly = %v, printed %q; want an error and nothing printed", err, stdout.String())
	}
}
