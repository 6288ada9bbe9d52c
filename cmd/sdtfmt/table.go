package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/event"
)

// siteTable writes sdtlist's probe sites as sdtlist -t does. Columns are
// aligned over the whole listing, so rows are kept until flush.
type siteTable struct {
	tw   *tabwriter.Writer
	live bool
	rows int
}

func newSiteTable(w io.Writer) *siteTable {
	return &siteTable{tw: tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)}
}

func (t *siteTable) write(s *event.Site) {
	if t.rows == 0 {
		// sdtlist -p gives every site a pid; the first one decides.
		t.live = s.PID != 0
		if t.live {
			fmt.Fprintln(t.tw, "PID\tFILE\tPROVIDER\tNAME\tADDR\tSEMAPHORE\tVALUE\tARMED\tARGS")
		} else {
			fmt.Fprintln(t.tw, "FILE\tPROVIDER\tNAME\tPC\tSEMAPHORE\tARGS")
		}
	}
	t.rows++
	var b strings.Builder
	if t.live {
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\t%s\t", s.PID, s.File, s.Provider, s.Name, hexOrDash(s.Addr))
		switch {
		case s.Semaphore == 0:
			b.WriteString("-\t-\t")
		case s.SemaphoreValueError != "" || s.SemaphoreValue == nil:
			fmt.Fprintf(&b, "%s\t?\t", hexOrDash(s.SemaphoreAddr))
		default:
			fmt.Fprintf(&b, "%s\t%d\t", hexOrDash(s.SemaphoreAddr), *s.SemaphoreValue)
		}
		switch {
		case s.ArmedError != "":
			b.WriteString("?\t")
		case s.Armed:
			b.WriteString("yes\t")
		default:
			b.WriteString("no\t")
		}
	} else {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%#x\t%s\t", s.File, s.Provider, s.Name, s.PC, hexOrDash(s.Semaphore))
	}
	b.WriteString(describeArgs(s.Argv))
	b.WriteByte('\n')
	io.WriteString(t.tw, b.String())
}

func (t *siteTable) flush() error { return t.tw.Flush() }

func hexOrDash(v uint64) string {
	if v == 0 {
		return "-"
	}
	return "0x" + strconv.FormatUint(v, 16)
}

// describeArgs renders arguments as TYPE@LOCATION, as sdtlist -t does.
func describeArgs(args []event.SiteArg) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a.Error != "" {
			b.WriteString("?@" + a.Raw)
			continue
		}
		b.WriteString(argspec.TypeName(a.Size, a.Signed, a.Float) + "@" + a.Location)
	}
	return b.String()
}
