package aggregate

import (
	"errors"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// ErrLatencySyntax is matched by the error of ParseLatency for a list
// that is not two or three items.
var ErrLatencySyntax = errors.New("want START,END[,KEY]")

// A LatencySpec is what a latency measures, written START,END[,KEY]: the
// probes whose hits start and end a pair, and the key a START and an END
// pair by. START and END are left as written, since what they are
// depends on the reader: patterns over the probes attached or traced, or
// the specifications of the probes to attach (package probespec parses
// either). The commas inside braces and parentheses are theirs:
// "app:{a,b},app:c" is START app:{a,b} and END app:c.
type LatencySpec struct {
	Start, End string
	// Pair is the key; the zero Key when none is given, which pairs by
	// thread.
	Pair Key
}

// ErrStackPair is the error of ParseLatency for a pairing key that is a
// stack: the STARTs and ENDs of a pair are hit from different places.
var ErrStackPair = errors.New("a stack pairs no START with its END: group by it with --by")

// ParseLatency parses START,END[,KEY]. Errors match ErrLatencySyntax or
// ErrStackPair, or are ParseKey's for KEY.
func ParseLatency(s string) (LatencySpec, error) {
	parts := probespec.SplitList(s)
	if len(parts) < 2 || len(parts) > 3 {
		return LatencySpec{}, ErrLatencySyntax
	}
	l := LatencySpec{Start: parts[0], End: parts[1]}
	if len(parts) == 3 {
		var err error
		if l.Pair, err = ParseKey(parts[2]); err != nil {
			key := parts[2]
			if key == "" {
				key = `""`
			}
			return LatencySpec{}, fmt.Errorf("%s: %w", key, err)
		}
		if l.Pair.Kind == KeyUStack {
			return LatencySpec{}, fmt.Errorf("ustack: %w", ErrStackPair)
		}
	}
	return l, nil
}
