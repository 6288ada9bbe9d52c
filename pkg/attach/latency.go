package attach

import (
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// SetLatency makes a the Aggregation of a latency from START,END[,KEY]
// (aggregate.ParseLatency), setting Mode, Start, End and Pair, and
// returns the probes it needs attached. When the
// probes are named otherwise (named is true), START and END are
// patterns over them, PROVIDER:NAME or NAME (probespec.ParsePattern),
// and it needs none; when not, START and END are the specifications of
// the probes to attach (probespec.Parse), one when they are the same.
// Errors are those of ParseLatency and of parsing START or END.
func (a *Aggregation) SetLatency(s string, named bool) ([]probespec.Spec, error) {
	l, err := aggregate.ParseLatency(s)
	if err != nil {
		return nil, err
	}
	parse := probespec.Parse
	if named {
		parse = probespec.ParsePattern
	}
	start, err := parse(l.Start)
	if err != nil {
		return nil, err
	}
	end, err := parse(l.End)
	if err != nil {
		return nil, err
	}
	a.Mode, a.Start, a.End, a.Pair = Latency, start, end, l.Pair
	switch {
	case named:
		return nil, nil
	case l.Start == l.End:
		return []probespec.Spec{start}, nil
	}
	return []probespec.Spec{start, end}, nil
}
