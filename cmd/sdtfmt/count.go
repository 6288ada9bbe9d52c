package main

import (
	"cmp"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sdtkit/sdtkit/pkg/event"
)

// countAgg is -c: the number of events per probe and --by key.
type countAgg struct {
	by     *key
	counts map[group]uint64
}

func newCountAgg(c *config) *countAgg {
	return &countAgg{by: c.by, counts: make(map[group]uint64)}
}

func (a *countAgg) event(e *event.Event) {
	g := group{provider: e.Provider, name: e.Name}
	if a.by != nil {
		g.by = a.by.text(e)
	}
	a.counts[g]++
}

// report writes the counts, largest first.
func (a *countAgg) report(w io.Writer) error {
	gs := slices.SortedFunc(maps.Keys(a.counts), func(x, y group) int {
		return cmp.Or(cmp.Compare(a.counts[y], a.counts[x]), compareGroups(x, y))
	})
	t := columns{right: []bool{false, true}}
	t.row("PROBE", "COUNT")
	if a.by != nil {
		t.right = []bool{false, false, true}
		t.rows[0] = []string{"PROBE", strings.ToUpper(a.by.String()), "COUNT"}
	}
	for _, g := range gs {
		n := strconv.FormatUint(a.counts[g], 10)
		if a.by != nil {
			t.row(probeText(g.provider, g.name), g.by, n)
		} else {
			t.row(probeText(g.provider, g.name), n)
		}
	}
	clear(a.counts)
	if len(gs) == 0 {
		return nil
	}
	return t.write(w)
}

func (a *countAgg) warnings() []string { return nil }

// sortedGroups returns the groups of m by probe, then key.
func sortedGroups[V any](m map[group]V) []group {
	return slices.SortedFunc(maps.Keys(m), compareGroups)
}

func compareGroups(x, y group) int {
	return cmp.Or(
		cmp.Compare(x.provider, y.provider),
		cmp.Compare(x.name, y.name),
		compareKeys(x.by, y.by),
	)
}

// compareKeys orders integers by value, and before other text.
func compareKeys(x, y string) int {
	i, errx := strconv.ParseInt(x, 10, 64)
	j, erry := strconv.ParseInt(y, 10, 64)
	switch {
	case errx == nil && erry == nil:
		return cmp.Compare(i, j)
	case errx == nil:
		return -1
	case erry == nil:
		return 1
	}
	return cmp.Compare(x, y)
}

// columns writes rows aligned on their widest cell, with two spaces
// between columns. A summary is printed whole, so it can be aligned.
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
