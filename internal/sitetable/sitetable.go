// Package sitetable writes probe sites as the aligned columns of
// sdtlist -t, which sdtfmt also writes for sdtlist's NDJSON. Text the
// files choose (paths, providers, names, arguments) is written as
// termtext does: quoted when it holds blanks, quotes or characters that
// are not printable.
package sitetable

import (
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sdtkit/sdtkit/internal/termtext"
)

// A Row is one probe site.
type Row struct {
	PID                    int // 0 for a file, not a process
	File, Provider, Name   string
	PC                     uint64 // the link-time address; the run-time one with a PID
	Semaphore              uint64 // 0 for none, or not known
	HasSemaphore           bool
	SemaphoreValue         uint64
	SemaphoreErr, ArmedErr bool // could not be read
	Armed                  bool
	Orphaned               bool   // armed, and no uprobe owns the breakpoint
	Insn                   string // the site's instruction in the file; "" when not known
	Args                   []Arg
}

// An Arg is an argument of a site: TYPE@LOCATION, such as s32@-20(%rbp),
// or, when it cannot be decoded, its raw text.
type Arg struct {
	Type, Location string
	Raw            string
	Bad            bool
}

// A Table writes Rows. Columns are aligned over the whole output, so rows
// are kept until Flush. Its columns are those of a file's sites, or with
// live set those of a process's: PID, run-time address, semaphore value,
// armed. The site's instruction comes before the arguments in both.
type Table struct {
	tw   *tabwriter.Writer
	live bool
	rows int
}

// New returns a Table writing to w.
func New(w io.Writer, live bool) *Table {
	return &Table{tw: tabwriter.NewWriter(w, 0, 8, 2, ' ', 0), live: live}
}

// Write adds a row, after the header when it is the first.
func (t *Table) Write(r *Row) error {
	var b strings.Builder
	if t.rows == 0 {
		if t.live {
			b.WriteString("PID\tFILE\tPROVIDER\tNAME\tADDR\tSEMAPHORE\tVALUE\tARMED\tINSN\tARGS\n")
		} else {
			b.WriteString("FILE\tPROVIDER\tNAME\tPC\tSEMAPHORE\tINSN\tARGS\n")
		}
	}
	t.rows++
	if t.live {
		b.WriteString(strconv.Itoa(r.PID) + "\t")
	}
	b.WriteString(termtext.String(r.File) + "\t" + termtext.String(r.Provider) + "\t" + termtext.String(r.Name) + "\t" + HexOrDash(r.PC) + "\t" + HexOrDash(r.Semaphore) + "\t")
	if t.live {
		switch {
		case !r.HasSemaphore:
			b.WriteString("-\t")
		case r.SemaphoreErr:
			b.WriteString("?\t")
		default:
			b.WriteString(strconv.FormatUint(r.SemaphoreValue, 10) + "\t")
		}
		switch {
		case r.ArmedErr:
			b.WriteString("?\t")
		case r.Orphaned:
			b.WriteString("orphan\t")
		case r.Armed:
			b.WriteString("yes\t")
		default:
			b.WriteString("no\t")
		}
	}
	if r.Insn == "" {
		b.WriteString("-\t")
	} else {
		b.WriteString(termtext.String(r.Insn) + "\t")
	}
	for i, a := range r.Args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a.Bad {
			b.WriteString(termtext.String("?@" + a.Raw))
			continue
		}
		b.WriteString(termtext.String(a.Type + "@" + a.Location))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(t.tw, b.String())
	return err
}

// Flush writes the rows.
func (t *Table) Flush() error { return t.tw.Flush() }

// HexOrDash writes v as 0x-prefixed hexadecimal, or "-" for 0.
func HexOrDash(v uint64) string {
	if v == 0 {
		return "-"
	}
	return "0x" + strconv.FormatUint(v, 16)
}
