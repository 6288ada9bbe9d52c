package aggregate

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sdtkit/sdtkit/internal/termtext"
)

// WriteCounts writes counts as an aligned table, largest count first,
// under a header: PROBE, the value of each by key (headed by the key in
// capitals, as PID or ARG0; the zero Key has no column) and COUNT. It
// writes nothing for no counts.
func WriteCounts(w io.Writer, counts map[Group]uint64, by ...Key) error {
	gs := slices.SortedFunc(maps.Keys(counts), func(x, y Group) int {
		return cmp.Or(cmp.Compare(counts[y], counts[x]), x.Compare(y))
	})
	if len(gs) == 0 {
		return nil
	}
	by = keysOf(by)
	t := columns{right: []bool{false}}
	t.row(keyHeads("PROBE", by, "COUNT")...)
	for range by {
		t.right = append(t.right, false)
	}
	t.right = append(t.right, true)
	for _, g := range gs {
		t.row(groupRow(g, by, strconv.FormatUint(counts[g], 10))...)
	}
	return t.write(w)
}

// keysOf returns the keys of by that are not the zero Key.
func keysOf(by []Key) []Key {
	return slices.DeleteFunc(slices.Clone(by), func(k Key) bool { return k == (Key{}) })
}

// byTitle returns title followed by ", KEY VALUE" for each key of by and
// its value in g.
func byTitle(title string, g Group, by []Key) string {
	if len(by) == 0 {
		return title
	}
	for j, v := range g.Values() {
		title += ", " + by[j].String() + " " + v
	}
	return title
}

// keyHeads returns the header of a table: first, the keys in capitals,
// then the rest.
func keyHeads(first string, by []Key, rest ...string) []string {
	head := []string{first}
	for _, k := range by {
		head = append(head, strings.ToUpper(k.String()))
	}
	return append(head, rest...)
}

// groupRow returns the cells of a group: its probe, its keys' values,
// then the rest.
func groupRow(g Group, by []Key, rest ...string) []string {
	r := []string{g.Probe()}
	if len(by) > 0 {
		r = append(r, g.Values()...)
	}
	return append(r, rest...)
}

// WriteHistograms writes hists, histograms of the values of key of, in
// the order of their groups and separated by a blank line, each under the
// title "PROVIDER:NAME KEY", with ", BYKEY VALUE" for each by key that is
// not the zero Key.
func WriteHistograms(w io.Writer, hists map[Group]*Histogram, of Key, by ...Key) error {
	by = keysOf(by)
	for i, g := range SortedGroups(hists) {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		io.WriteString(w, byTitle(g.Probe()+" "+of.String(), g, by)+"\n")
		if _, err := hists[g].WriteTo(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteStats writes stats of the values of key of as an aligned table,
// in the order of their groups, under a header: PROBE, the value of each
// by key as WriteCounts has them, then COUNT, SUM, MIN, MAX and MEAN
// (the mean as Stats.Mean gives it), headed "STATS OF KEY". Stats
// without values show "-" for SUM to MEAN. It writes nothing for no
// stats.
func WriteStats(w io.Writer, stats map[Group]*Stats, of Key, by ...Key) error {
	gs := SortedGroups(stats)
	if len(gs) == 0 {
		return nil
	}
	by = keysOf(by)
	fmt.Fprintf(w, "stats of %s\n", of)
	t := columns{}
	t.row(keyHeads("PROBE", by, "COUNT", "SUM", "MIN", "MAX", "MEAN")...)
	for range len(by) + 1 {
		t.right = append(t.right, false)
	}
	t.right = append(t.right, true, true, true, true, true)
	for _, g := range gs {
		s := stats[g]
		cells := []string{strconv.FormatUint(s.Count, 10), "-", "-", "-", "-"}
		if s.Count > 0 {
			for i, v := range []int64{s.Sum, s.Min, s.Max, s.Mean()} {
				cells[i+1] = strconv.FormatInt(v, 10)
			}
		}
		t.row(groupRow(g, by, cells...)...)
	}
	return t.write(w)
}

// WriteText writes the latencies under the title "START -> END by KEY:
// pairs N, latency in ns": their histogram, "min D  avg D  max D" in Go
// duration notation, a line that counts the ENDs without a START and the
// STARTs still waiting when there are such, and the slowest pairs in a
// table of LATENCY, START (the START's time as appendTime writes it; no
// column when appendTime is nil), PID, TID, COMM and, for an argument or
// field key, its value.
func (l *Latency) WriteText(w io.Writer, start, end string, appendTime func(b []byte, ts int64) []byte) error {
	fmt.Fprintf(w, "%s -> %s by %s: pairs %d, latency in ns\n", start, end, l.Key, l.Stats.Count)
	if s := l.Stats; s.Count > 0 {
		l.Hist.WriteTo(w)
		fmt.Fprintf(w, "\nmin %v  avg %v  max %v\n", time.Duration(s.Min), time.Duration(s.Mean()), time.Duration(s.Max))
	}
	if l.Unmatched > 0 || l.Pending > 0 {
		fmt.Fprintf(w, "%d END without START, %d START without END yet\n", l.Unmatched, l.Pending)
	}
	if len(l.Slowest) == 0 {
		return nil
	}
	io.WriteString(w, "\n")
	withKey := l.Key.Kind == KeyArg || l.Key.Kind == KeyField
	head, right := []string{"LATENCY"}, []bool{true}
	if appendTime != nil {
		head, right = append(head, "START"), append(right, false)
	}
	head, right = append(head, "PID", "TID", "COMM"), append(right, false, false, false)
	if withKey {
		head = append(head, strings.ToUpper(l.Key.String()))
	}
	t := columns{right: right}
	t.row(head...)
	for _, p := range l.Slowest {
		r := []string{p.Latency.String()}
		if appendTime != nil {
			r = append(r, string(appendTime(nil, p.TS)))
		}
		r = append(r, strconv.FormatInt(p.PID, 10), strconv.FormatInt(p.TID, 10), termtext.String(p.Comm))
		if withKey {
			r = append(r, p.Key)
		}
		t.row(r...)
	}
	return t.write(w)
}

// columns writes rows aligned on their widest cell, with two spaces
// between columns. A summary is written whole, so it can be aligned.
type columns struct {
	right []bool // per column: align right
	rows  [][]string
}

func (t *columns) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *columns) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			switch {
			case i < len(t.right) && t.right[i]:
				b.WriteString(pad + c)
			case i == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
			if i < len(r)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
