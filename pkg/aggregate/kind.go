package aggregate

import "strconv"

// A Kind says what a Record holds.
type Kind uint8

const (
	// KindCount is the hits of a probe and key: Count.
	KindCount Kind = iota + 1
	// KindHist is a histogram of Hist: Count values in Buckets, and the
	// hits whose value could not be read, Unread.
	KindHist
	// KindStats is the stats of Stats: Count values, Sum, Min, Max,
	// Mean, and Unread.
	KindStats
	// KindLatency is what an END probe of a latency ended: Count pairs
	// from From, their times in ns in Buckets and the stats, and the
	// ENDs that found no START, Unmatched.
	KindLatency
	// KindStarts is the hits of a START probe of a latency: Count, for
	// To, and the STARTs still waiting, Pending.
	KindStarts
	// KindLost is the hits of a probe not counted for want of room in
	// the map of keys (or of STARTs waiting): Lost.
	KindLost
)

var kindNames = [...]string{KindCount: "count", KindHist: "hist", KindStats: "stats", KindLatency: "latency", KindStarts: "starts", KindLost: "lost"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Kind returns what the record holds, so that a reader of records need
// not tell it from which fields are set.
func (r *Record) Kind() Kind {
	switch {
	case r.Lost > 0 && r.Count == 0 && r.Unread == 0:
		return KindLost
	case r.Latency != (Key{}) && r.Start:
		return KindStarts
	case r.Latency != (Key{}):
		return KindLatency
	case r.Hist != (Key{}):
		return KindHist
	case r.Stats != (Key{}):
		return KindStats
	}
	return KindCount
}
