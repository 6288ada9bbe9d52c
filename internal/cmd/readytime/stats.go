package main

import "slices"

// stats are the minimum, median and maximum of a set of times in seconds.
type stats struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// summarize returns the stats of xs, which is not empty. The median of an
// even count is the mean of the two middle values, as hyperfine's is.
func summarize(xs []float64) stats {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return stats{Min: s[0], Median: med, Max: s[n-1]}
}
