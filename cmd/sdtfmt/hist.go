package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/event"
)

// A hist is a log2 histogram as bpftrace draws them: one bucket for the
// negative values, one for 0, one for 1, then [2, 4), [4, 8) and so on.
type hist struct {
	buckets [66]uint64
}

// barWidth is the width of the bar of the fullest bucket.
const barWidth = 52

func bucket(u uint64) int {
	if u == 0 {
		return 1
	}
	return bits.Len64(u) + 1
}

func (h *hist) addUint(u uint64) { h.buckets[bucket(u)]++ }

func (h *hist) addInt(i int64) {
	if i < 0 {
		h.buckets[0]++
		return
	}
	h.addUint(uint64(i))
}

// add adds a value; false for one that is not a number.
func (h *hist) add(v event.Value) bool {
	i, ok := bucketOf(v)
	if ok {
		h.buckets[i]++
	}
	return ok
}

// bucketOf returns the bucket of a value that is a number.
func bucketOf(v event.Value) (int, bool) {
	switch v.Kind {
	case event.Int:
		return 0, true
	case event.Number:
		f, err := strconv.ParseFloat(v.Str, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return 0, false
		case f < 0:
			return 0, true
		case f >= math.MaxUint64:
			return len(hist{}.buckets) - 1, true
		}
		return bucket(uint64(f)), true
	}
	u, ok := v.Uint64()
	return bucket(u), ok
}

// label names bucket i.
func label(i int) string {
	switch i {
	case 0:
		return "(..., 0)"
	case 1:
		return "[0]"
	case 2:
		return "[1]"
	}
	return "[" + power(i-2) + ", " + power(i-1) + ")"
}

// power writes 2**p with the suffix K, M, G, T, P or E when p allows.
func power(p int) string {
	const suffixes = " KMGTPE"
	unit := min(p/10, len(suffixes)-1)
	s := strconv.FormatUint(1<<(p-10*unit), 10)
	if unit > 0 {
		s += suffixes[unit : unit+1]
	}
	return s
}

// write draws the buckets from the first to the last that is not empty.
func (h *hist) write(w io.Writer) error {
	lo, hi := -1, -1
	var most uint64
	for i, n := range h.buckets {
		if n == 0 {
			continue
		}
		if lo < 0 {
			lo = i
		}
		hi = i
		most = max(most, n)
	}
	if lo < 0 {
		return nil
	}
	var b strings.Builder
	for i := lo; i <= hi; i++ {
		n := h.buckets[i]
		bar := int(float64(n) / float64(most) * barWidth)
		fmt.Fprintf(&b, "%-16s%8d |%s%s|\n", label(i), n, strings.Repeat("@", bar), strings.Repeat(" ", barWidth-bar))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// histAgg is --hist: a histogram per probe and --by key.
type histAgg struct {
	of      *key
	by      *key
	hists   map[group]*hist
	missing uint64 // events without a numeric value
}

// A group is what counts and histograms are kept per.
type group struct {
	provider, name, by string
}

func newHistAgg(c *config) *histAgg {
	return &histAgg{of: c.hist, by: c.by, hists: make(map[group]*hist)}
}

func (a *histAgg) event(e *event.Event) {
	v, ok := a.of.value(e)
	if !ok {
		a.missing++
		return
	}
	g := group{provider: e.Provider, name: e.Name}
	if a.by != nil {
		g.by = a.by.text(e)
	}
	i, ok := bucketOf(v)
	if !ok {
		a.missing++
		return
	}
	h := a.hists[g]
	if h == nil {
		h = new(hist)
		a.hists[g] = h
	}
	h.buckets[i]++
}

func (a *histAgg) report(w io.Writer) error {
	for i, g := range sortedGroups(a.hists) {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		title := probeText(g.provider, g.name) + " " + a.of.String()
		if a.by != nil {
			title += ", " + a.by.String() + " " + g.by
		}
		io.WriteString(w, title+"\n")
		if err := a.hists[g].write(w); err != nil {
			return err
		}
	}
	clear(a.hists)
	return nil
}

func (a *histAgg) warnings() []string {
	if a.missing == 0 {
		return nil
	}
	return []string{fmt.Sprintf("--hist %s: %d events had no numeric %s", a.of, a.missing, a.of)}
}
