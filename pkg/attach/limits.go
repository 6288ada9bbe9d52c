package attach

import "github.com/sdtkit/sdtkit/pkg/bpf"

// A Mode is what an Aggregation keeps of the hits of each key.
type Mode uint8

const (
	Count   Mode = iota + 1 // the hits
	Hist                    // a log2 histogram of a value
	Stats                   // the count, sum, least and greatest of a value
	Latency                 // a log2 histogram and stats of the time from a START hit to its END
)

// bpfMode is m as the aggregating program knows it.
func (m Mode) bpfMode() bpf.AggMode {
	switch m {
	case Count:
		return bpf.AggCount
	case Hist:
		return bpf.AggHist
	case Stats:
		return bpf.AggStats
	case Latency:
		return bpf.AggLatency
	}
	return 0
}

// Defaults and limits of Options and Aggregation: those of the BPF
// program, which the tracefs backend keeps too.
const (
	// DefaultStringSize is the default of Options.StringSize, and
	// MaxStringSize its most.
	DefaultStringSize = 64
	MaxStringSize     = 254
	// DefaultRingSize is the default of Options.RingSize, and
	// MaxRingSize its most.
	DefaultRingSize = 4 << 20
	MaxRingSize     = 1 << 30
	// CopyRingEvents is how many events with copies of the stack
	// (Options.UStackCopy) the BPF backend's default ring buffer holds,
	// in MaxCopyRingSize at most.
	CopyRingEvents  = bpf.CopyRingEvents
	MaxCopyRingSize = bpf.MaxCopyRingSize
	// DefaultMaxKeys is the default of Aggregation.MaxKeys, and MaxKeys
	// its most.
	DefaultMaxKeys = 10240
	MaxKeys        = 1 << 24
	// MaxKeyParts is the most keys of Aggregation.By.
	MaxKeyParts = 8
	// MaxStack is the most frames of Options.UStack.
	MaxStack = bpf.MaxStack
	// DefaultStackCopy is a good Options.UStackCopy, perf's default, and
	// MaxStackCopy its most.
	DefaultStackCopy = bpf.DefaultStackCopy
	MaxStackCopy     = bpf.MaxStackCopy
)
