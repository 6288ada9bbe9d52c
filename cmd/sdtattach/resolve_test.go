package main

import (
	"context"
	"errors"
	"io"
	"log"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Reading a --types file that is a named pipe without a writer blocks;
// selectSites gives up on it when its context is done, as on a signal.
func TestSelectSitesCanceled(t *testing.T) {
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
		_, err := selectSites(ctx, c, log.New(io.Discard, "", 0))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel(errors.New("terminated signal received"))
	select {
	case err := <-done:
		if want := "terminated signal received before anything was attached"; err == nil || err.Error() != want {
			t.Errorf("selectSites = %v, want %s", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("selectSites does not return once its context is done")
	}
}

// A PATH that is a named pipe is an error at once.
func TestSelectSitesNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "prog")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := probespec.Parse(fifo + ":a:b")
	if err != nil {
		t.Fatal(err)
	}
	_, err = selectSites(context.Background(), &config{specs: []probespec.Spec{spec}}, log.New(io.Discard, "", 0))
	if err == nil || !strings.HasSuffix(err.Error(), fifo+": is a named pipe, not an ELF file") {
		t.Errorf("selectSites = %v, want the named pipe refused", err)
	}
}

// When the search for the processes that map the files is cut short by a
// signal, --attach-only fails instead of printing a summary without them.
func TestAttachOnlyInterrupted(t *testing.T) {
	pids := make(chan []int)
	close(pids)
	var stdout strings.Builder
	err := attachOnly(&config{attachOnly: true}, &stdout, nil, nil, pids)
	if err == nil || stdout.Len() > 0 {
		t.Errorf("attachOnly = %v, printed %q; want an error and nothing printed", err, stdout.String())
	}
}

func TestDamagedStatus(t *testing.T) {
	other := errors.New("attach: no permission")
	for _, tt := range []struct {
		d    damaged
		err  error
		want string
	}{
		{nil, nil, ""},
		{nil, other, other.Error()},
		{damaged{"./a", "./b"}, other, other.Error()},
		{damaged{"./a", "./b"}, nil, "malformed stapsdt notes in ./a, ./b (reported above); the other probes were attached"},
	} {
		got := tt.d.status(tt.err)
		if (got == nil) != (tt.want == "") || got != nil && got.Error() != tt.want {
			t.Errorf("%q.status(%v) = %v, want %q", tt.d, tt.err, got, tt.want)
		}
	}
}

// The symbols of a file that became a named pipe after its notes were read
// are an error at once.
func TestSymbolsNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "prog")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := (&target{name: "prog", path: fifo}).symbols()
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.HasSuffix(err.Error(), "is a named pipe") {
			t.Errorf("symbols() = %v, want the named pipe refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("symbols() blocks on a named pipe")
	}
}
