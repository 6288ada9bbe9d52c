package attach

import "fmt"

// Summary returns the lines that say where the hits of a run went, for
// a tool to print at its end: hits and lost, the totals of the records'
// hits and lost (aggregate.RecordWriter keeps them). Lost hits are told
// apart by cause: a full map of keys (--max-keys), a full ring buffer of
// the events folded here, hits counted without their user stack, and
// hits not counted at all.
func (a *Aggregator) Summary(hits, lost uint64) []string {
	ring := a.RingLost()
	lines := []string{fmt.Sprintf("%d hits counted, %d lost to a full map of keys (--max-keys)", hits, lost-min(ring, lost))}
	if ring > 0 {
		lines = append(lines, fmt.Sprintf("%d probe hits were lost in a full ring buffer, counted as lost (see --bufsize)", ring))
	}
	if n := a.StackErrors(); n.Total() > 0 {
		lines = append(lines, fmt.Sprintf("%v (--by ustack)", n))
	}
	switch n := a.Skipped(); {
	case n > 0 && !a.InKernel():
		lines = append(lines, fmt.Sprintf("%d probe hits were not counted (lost in a full ring buffer: see --bufsize)", n))
	case n > 0:
		lines = append(lines, fmt.Sprintf("%d probe hits were not counted (of an unknown site, or with no room to count them as lost)", n))
	}
	return lines
}
