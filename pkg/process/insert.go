package process

import (
	"cmp"
	"slices"
)

// Insert returns maps, sorted by address, with m added in place of what
// it overlaps, as a new mmap replaces the pages it covers: a mapping
// partly covered keeps the rest, its file offset moved with its start.
// It is how a tracer that learns of the mappings a process makes from
// the kernel (a perf event's PERF_RECORD_MMAP2), rather than from
// /proc/PID/maps, keeps them.
func Insert(maps []Mapping, m Mapping) []Mapping {
	out := make([]Mapping, 0, len(maps)+2)
	for _, o := range maps {
		if o.End <= m.Start || o.Start >= m.End {
			out = append(out, o)
			continue
		}
		if o.Start < m.Start {
			left := o
			left.End = m.Start
			out = append(out, left)
		}
		if o.End > m.End {
			right := o
			right.Offset += m.End - o.Start
			right.Start = m.End
			out = append(out, right)
		}
	}
	out = append(out, m)
	slices.SortFunc(out, func(a, b Mapping) int { return cmp.Compare(a.Start, b.Start) })
	return out
}
