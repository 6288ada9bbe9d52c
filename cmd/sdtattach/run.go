package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/sdtkit/sdtkit/pkg/bpf"
)

// flushInterval bounds how long an event waits, in the ring buffer and
// again in the output buffer, before a reader of stdout sees it.
const flushInterval = 100 * time.Millisecond

// drainPoll is how often a stopping sdtattach checks whether the reader
// has emptied the ring buffer.
const drainPoll = 10 * time.Millisecond

// errCount stops the reader once -n events are written.
var errCount = errors.New("event count reached")

// run attaches to the probes the command line names and streams their
// events to stdout until a stop condition.
func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "sdtattach: ", 0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// With SIGPIPE caught, a write to a closed pipe fails with EPIPE
	// instead of killing the process, so that it still detaches cleanly.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	sel, err := selectSites(ctx, c, logger)
	if err != nil {
		return exitedError(c.pid, err)
	}
	probes, atts, sites, damaged := sel.probes, sel.atts, sel.sites, sel.damaged
	if len(sites) == 0 {
		return errors.New("no probe site can be attached")
	}
	var pids <-chan []int
	if c.attachOnly && c.pid == 0 {
		pids = startMappers(ctx, atts)
	}
	prog, err := bpf.Load(&bpf.Options{
		RingSize:      c.bufsize,
		MaxSites:      len(sites),
		StringSize:    c.strlen,
		FlushInterval: flushInterval,
		PID:           c.pid,
		NoStrings:     !readsStrings(atts),
	})
	if err != nil {
		return err
	}
	defer prog.Close()
	for _, a := range atts {
		if err := prog.Attach(a.target.path, a.sites); err != nil {
			return exitedError(c.pid, attachError(err, hasSemaphores(a.sites)))
		}
	}
	if c.attachOnly {
		return damaged.status(attachOnly(c, stdout, probes, atts, pids))
	}
	out := newOutput(stdout, sites, logger)
	err = stream(ctx, c, prog, out)
	summary(logger, out, probes)
	if errors.Is(err, syscall.EPIPE) {
		err = nil
	}
	return damaged.status(err)
}

// stream copies events to out until the -n count, the -d duration, a
// signal, the exit of the -p process, or an error. On a stop other than
// the count, the probes are detached first and the events still in the
// ring buffer are written before returning.
func stream(ctx context.Context, c *config, prog *bpf.Program, out *output) error {
	var mu sync.Mutex
	readerDone := make(chan error, 1)
	go func() {
		var ev bpf.Event
		for {
			if err := prog.Read(&ev); err != nil {
				readerDone <- err
				return
			}
			mu.Lock()
			err := out.event(&ev)
			if err == nil && c.count > 0 && out.events >= c.count {
				err = errCount
			}
			mu.Unlock()
			if err != nil {
				readerDone <- err
				return
			}
		}
	}()

	var timeout <-chan time.Time
	if c.duration > 0 {
		t := time.NewTimer(c.duration)
		defer t.Stop()
		timeout = t.C
	}
	watchCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := watchExit(watchCtx, c.pid)
	tick := time.NewTicker(flushInterval)
	defer tick.Stop()
	signaled := ctx.Done()
	var drain <-chan time.Time
	var detachErr error
	startDrain := func() {
		signaled, timeout, exited = nil, nil, nil
		if drain == nil {
			// Once detached, no event is added: the reader empties
			// the ring buffer, then the lost count is final.
			detachErr = prog.Detach()
			drain = time.After(drainPoll)
		}
	}
	var result error
	readerRunning := true
loop:
	for {
		select {
		case err := <-readerDone:
			readerRunning = false
			if !errors.Is(err, errCount) {
				result = err
			}
			break loop
		case <-tick.C:
			mu.Lock()
			err := out.tick(prog)
			mu.Unlock()
			if err != nil {
				result = err
				break loop
			}
		case <-signaled:
			startDrain()
		case <-timeout:
			startDrain()
		case <-exited:
			startDrain()
		case <-drain:
			if prog.Pending() > 0 {
				drain = time.After(drainPoll)
				continue
			}
			break loop
		}
	}
	// The counters live in a map that Close releases.
	mu.Lock()
	if n, err := prog.Lost(); err == nil {
		if err := out.lostEvents(n); err != nil && result == nil {
			result = err
		}
	}
	if n, err := prog.Skipped(); err == nil {
		out.skipped = n
	}
	mu.Unlock()
	closeErr := prog.Close()
	if readerRunning {
		if err := <-readerDone; !errors.Is(err, bpf.ErrClosed) && !errors.Is(err, errCount) && result == nil {
			result = err
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if err := errors.Join(detachErr, closeErr); result == nil && err != nil {
		result = fmt.Errorf("detach: %w", err)
	}
	if err := out.flush(); err != nil && result == nil {
		result = err
	}
	return result
}

// tick reports newly lost events in-band and flushes the output, so that
// a reader of a pipe sees events while the probes are idle.
func (o *output) tick(prog *bpf.Program) error {
	if n, err := prog.Lost(); err == nil {
		if err := o.lostEvents(n); err != nil {
			return err
		}
	}
	return o.flush()
}

// summary prints the event counts on stderr.
func summary(logger *log.Logger, out *output, probes []*probe) {
	logger.Printf("%d events, %d lost", out.events, out.lost)
	if out.skipped > 0 {
		logger.Printf("%d probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)", out.skipped)
	}
	for _, p := range probes {
		logger.Printf("%s:%v: %d events", p.target.name, p, p.events)
	}
}
