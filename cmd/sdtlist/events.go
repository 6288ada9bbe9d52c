package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sdtkit/sdtkit/internal/regfile"
	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
	"github.com/sdtkit/sdtkit/pkg/tracefs"
)

// groupPrefix is the prefix of the groups of --uprobe-events, as perf
// names the events of USDT probes: sdt_PROVIDER.
const groupPrefix = "sdt_"

// uprobeEvents writes sites as uprobe_events definitions, each after a
// comment line per argument it leaves out.
type uprobeEvents struct {
	w     io.Writer
	names tracefs.Namer
	file  string // of opts
	opts  *tracefs.Options
	path  string // absolute
	err   error  // of the file: written once
	// symOpts say where the debug files of stripped files are.
	symOpts *symbolize.Options
}

func newUprobeEvents(w io.Writer, symOpts *symbolize.Options) *uprobeEvents {
	return &uprobeEvents{w: w, symOpts: symOpts}
}

func (u *uprobeEvents) flush() error { return nil }

func (u *uprobeEvents) write(s *site) error {
	if s.file != u.file {
		u.open(s.file, s.data)
	}
	if u.err != nil {
		return nil // reported by open
	}
	p := s.probe
	group := tracefs.Group(groupPrefix, p.Provider)
	d, err := tracefs.Define(p, s.machine, u.path, group, u.names.Name(group, p.Name), u.opts)
	if errors.Is(err, tracefs.ErrMachine) {
		u.err = err
		return fmt.Errorf("%s: %w", s.file, err)
	}
	if err != nil {
		_, werr := fmt.Fprintf(u.w, "# %s at %#x left out: %s\n", probeName(p), p.PC, printable(err.Error()))
		return werr
	}
	for _, l := range d.LeftOut {
		if _, err := fmt.Fprintf(u.w, "# %s at %#x: %s\n", probeName(p), p.PC, printable(l.String())); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(u.w, d)
	return err
}

// open reads what the definitions of file need: its type, and the
// addresses of its symbols for operands that name one. data, when not
// nil, holds the file, which its name does not (an archive member).
func (u *uprobeEvents) open(file string, data io.ReaderAt) {
	u.file, u.opts, u.err = file, &tracefs.Options{}, nil
	if u.path, u.err = filepath.Abs(file); u.err != nil {
		return
	}
	if data == nil {
		fd, err := regfile.Open(file)
		if err != nil {
			u.err = err
			return
		}
		defer fd.Close()
		data = fd
	}
	f, err := elf.NewFile(data)
	if err != nil {
		u.err = err
		return
	}
	u.opts.Type = f.Type
	if f.Machine == elf.EM_ARM {
		u.opts.ARM = tracefs.ARMCode(f)
	}
	// An operand naming a symbol is left out with its error when the
	// symbols cannot be read.
	u.opts.Symbols, _ = symbolize.NewObject(data, file, u.symOpts)
}

func probeName(p *stapsdt.Site) string {
	return termtext.String(p.Provider) + ":" + termtext.String(p.Name)
}

// printable returns a message as it is when it holds no control
// characters, and quoted otherwise.
func printable(s string) string { return string(termtext.AppendPrintable(nil, s)) }
