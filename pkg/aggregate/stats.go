package aggregate

// Stats holds the count, sum, least and greatest of values, as bpftrace's
// stats(), count(), sum(), min() and max() keep them. The zero value has
// no values.
type Stats struct {
	Count    uint64
	Sum      int64
	Min, Max int64 // meaningful when Count > 0
}

// Add counts one value.
func (s *Stats) Add(v int64) {
	if s.Count == 0 || v < s.Min {
		s.Min = v
	}
	if s.Count == 0 || v > s.Max {
		s.Max = v
	}
	s.Count++
	s.Sum += v
}

// Merge adds the values o counted, such as those of another CPU.
func (s *Stats) Merge(o Stats) {
	if o.Count == 0 {
		return
	}
	if s.Count == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if s.Count == 0 || o.Max > s.Max {
		s.Max = o.Max
	}
	s.Count += o.Count
	s.Sum += o.Sum
}

// Mean returns the sum divided by the count, as integers divide; 0 when
// there are no values.
func (s Stats) Mean() int64 {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / int64(s.Count)
}
