package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/eventtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// formatter takes the records of all inputs in order.
type formatter struct {
	c      *config
	w      *bufio.Writer
	tty    bool // flush after every line
	view   *eventtext.View
	forms  formats // of the view
	sum    summary
	clock  eventtext.Clock // for the summaries
	sites  *siteTable
	recs   aggregate.Summary // of sdtattach --count, --hist, --stats
	full   uint64            // hits the records report not counted: the map was full
	lost   uint64
	mu     sync.Mutex // guards sum against the --interval ticker
	logger *log.Logger
}

// run formats the inputs the command line names. Bad lines and unreadable
// files are reported on stderr and turn into cli.ErrFailed at the end.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	f := &formatter{
		c:      c,
		w:      bufio.NewWriterSize(stdout, 64<<10),
		tty:    isTerminal(stdout),
		forms:  formats{templates: c.templates},
		clock:  eventtext.Clock{Style: c.time},
		logger: log.New(stderr, "sdtfmt: ", 0),
	}
	f.sites = newSiteTable(f.w)
	if f.sum = newSummary(c, &f.clock); f.sum == nil {
		f.view = eventtext.NewView(f.w, c.time)
	}
	stop := func() {}
	if f.sum != nil && c.interval > 0 {
		stop = f.tick(c.interval)
	}

	failed := false
	if len(c.files) == 0 {
		c.files = []string{"-"}
	}
	for _, name := range c.files {
		var n int
		var err error
		if name == "-" {
			n, err = f.read("", stdin)
		} else {
			n, err = f.readFile(name)
		}
		if err != nil {
			if errors.Is(err, errWrite) {
				stop()
				return err
			}
			f.logger.Print(err)
			failed = true
		}
		failed = failed || n > 0
	}
	stop()
	if err := f.finish(); err != nil {
		return err
	}
	if failed {
		return cli.ErrFailed
	}
	return nil
}

// errWrite marks a failure to write the output, which ends the run.
var errWrite = errors.New("write")

func (f *formatter) readFile(name string) (int, error) {
	file, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	return f.read(name+": ", file)
}

// read formats the records of one input and returns how many lines it
// skipped. prefix names the input in messages.
func (f *formatter) read(prefix string, r io.Reader) (int, error) {
	rd := ndjson.NewReader(r)
	var e ndjson.Event
	bad := 0
	for {
		if f.view != nil && !f.tty && !rd.Buffered() {
			// Nothing more is waiting: show what there is before blocking.
			if err := f.w.Flush(); err != nil {
				return bad, fmt.Errorf("%w: %w", errWrite, err)
			}
		}
		kind, err := rd.Read(&e)
		var lerr *ndjson.LineError
		switch {
		case err == io.EOF:
			return bad, nil
		case errors.As(err, &lerr):
			f.logger.Printf("%s%v", prefix, lerr)
			bad++
			continue
		case err != nil:
			return bad, fmt.Errorf("%sread: %w", prefix, err)
		}
		if err := f.record(kind, &e, rd); err != nil {
			return bad, fmt.Errorf("%w: %w", errWrite, err)
		}
	}
}

func (f *formatter) record(kind ndjson.Kind, e *ndjson.Event, rd *ndjson.Reader) error {
	var err error
	switch kind {
	case ndjson.KindEvent:
		if f.view != nil {
			err = f.view.WriteEvent(e, f.forms.of(e))
			break
		}
		f.clock.See(e.TS)
		f.mu.Lock()
		f.sum.event(e)
		f.mu.Unlock()
	case ndjson.KindLost:
		if e.Provider != "" {
			// Hits of an aggregation's probe that found its map full.
			f.full += e.Lost
			break
		}
		f.lost += e.Lost
		if f.view != nil {
			err = f.view.WriteLost(e.Lost)
		}
	case ndjson.KindAggregate:
		r, perr := aggregate.ParseRecord(rd.Bytes())
		if perr != nil {
			f.logger.Printf("line %d: %v", rd.Line(), perr)
			return nil
		}
		if sc, ok := f.sum.(*stackCounts); ok { // no --interval ticker
			sc.record(r)
			break
		}
		err = f.recs.Add(f.w, r)
	case ndjson.KindSite:
		s, perr := ndjson.ParseSite(rd.Bytes())
		if perr != nil {
			f.logger.Printf("line %d: %v", rd.Line(), perr)
			return nil
		}
		f.sites.write(s)
	}
	if err == nil && f.tty {
		err = f.w.Flush()
	}
	return err
}

// finish writes the summaries and the site table.
func (f *formatter) finish() error {
	if f.sum != nil {
		f.mu.Lock()
		err := f.sum.report(f.w)
		for _, w := range f.sum.warnings() {
			f.logger.Print(w)
		}
		f.mu.Unlock()
		if err != nil {
			f.logger.Print(err)
			return cli.ErrFailed
		}
		if f.lost > 0 {
			f.logger.Printf("lost %d events: the summary leaves them out", f.lost)
		}
	}
	f.recs.Write(f.w, f.recs.Written() > 0)
	if f.recs.Unread > 0 {
		f.logger.Printf("%d hits had a value that could not be read: the summary leaves them out", f.recs.Unread)
	}
	if f.full > 0 {
		f.logger.Printf("%d hits were not counted (sdtattach's map of keys was full): the summary leaves them out", f.full)
	}
	f.sites.flush()
	if err := f.w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// tick writes the summary every d, headed by the time of day, and
// returns a function that stops it.
func (f *formatter) tick(d time.Duration) func() {
	t := time.NewTicker(d)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				f.mu.Lock()
				fmt.Fprintf(f.w, "[%s]\n", now.Format("15:04:05"))
				f.sum.report(f.w)
				f.w.WriteString("\n")
				f.w.Flush()
				f.mu.Unlock()
			}
		}
	})
	return func() {
		t.Stop()
		close(done)
		wg.Wait()
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
