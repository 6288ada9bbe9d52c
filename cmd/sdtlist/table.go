package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// table writes sites as aligned columns for people. Columns are aligned
// over the whole output, so rows are kept until flush.
type table struct {
	tw   *tabwriter.Writer
	live bool
	rows int
}

func newTable(w io.Writer, live bool) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 8, 2, ' ', 0), live: live}
}

func (t *table) write(s *site) error {
	if t.rows == 0 {
		if t.live {
			fmt.Fprintln(t.tw, "PID\tFILE\tPROVIDER\tNAME\tADDR\tSEMAPHORE\tVALUE\tARMED\tARGS")
		} else {
			fmt.Fprintln(t.tw, "FILE\tPROVIDER\tNAME\tPC\tSEMAPHORE\tARGS")
		}
	}
	t.rows++
	p := s.probe
	var b strings.Builder
	if t.live {
		l := s.live
		b.WriteString(strconv.Itoa(l.pid))
		b.WriteByte('\t')
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t", s.file, p.Provider, p.Name, hexOrDash(l.addr))
		switch {
		case !p.HasSemaphore():
			b.WriteString("-\t-\t")
		case l.semaphoreErr != nil:
			fmt.Fprintf(&b, "%s\t?\t", hexOrDash(l.semaphoreAddr))
		default:
			fmt.Fprintf(&b, "%s\t%d\t", hexOrDash(l.semaphoreAddr), l.semaphoreValue)
		}
		switch {
		case l.armedErr != nil:
			b.WriteString("?\t")
		case l.armed:
			b.WriteString("yes\t")
		default:
			b.WriteString("no\t")
		}
	} else {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%#x\t%s\t", s.file, p.Provider, p.Name, p.PC, hexOrDash(p.Semaphore))
	}
	b.WriteString(describeArgs(s.argv))
	b.WriteByte('\n')
	_, err := io.WriteString(t.tw, b.String())
	return err
}

func (t *table) flush() error { return t.tw.Flush() }

func hexOrDash(v uint64) string {
	if v == 0 {
		return "-"
	}
	return "0x" + strconv.FormatUint(v, 16)
}

// describeArgs renders arguments as TYPE@LOCATION, such as
// "s32@-20(%rbp) u64@%rax"; an argument that cannot be decoded shows as
// "?@" and its raw text.
func describeArgs(args []argspec.Arg) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a.Err != nil {
			b.WriteString("?@")
			b.WriteString(a.Raw)
			continue
		}
		b.WriteString(a.TypeName())
		b.WriteByte('@')
		b.WriteString(a.Location())
	}
	return b.String()
}
