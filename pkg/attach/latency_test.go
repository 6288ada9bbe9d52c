package attach

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

func TestSetLatency(t *testing.T) {
	for _, tt := range []struct {
		in         string
		named      bool
		start, end string
		pair       aggregate.KeyKind
		attach     []string
		err        string
	}{
		{in: "app:req,app:done", start: "app:req", end: "app:done", attach: []string{"app:req", "app:done"}},
		{in: "app:op,app:op,arg0", start: "app:op", end: "app:op", pair: aggregate.KeyArg, attach: []string{"app:op"}},
		{in: "./a:p:s,./b:p:e", start: "./a:p:s", end: "./b:p:e", attach: []string{"./a:p:s", "./b:p:e"}},
		{in: "req,app:done,pid", named: true, start: "req", end: "app:done", pair: aggregate.KeyPID},
		{in: "app:req", err: "START,END"},
		{in: "./a:p:s,app:done", named: true, err: "./a:p:s"},
	} {
		var a Aggregation
		specs, err := a.SetLatency(tt.in, tt.named)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("SetLatency(%q, %v) = %v, want an error with %q", tt.in, tt.named, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("SetLatency(%q, %v) = %v", tt.in, tt.named, err)
			continue
		}
		var got []string
		for _, s := range specs {
			got = append(got, s.String())
		}
		if a.Mode != Latency || spelled(a.Start) != tt.start && a.Start.String() != tt.start || spelled(a.End) != tt.end && a.End.String() != tt.end ||
			a.Pair.Kind != tt.pair || strings.Join(got, " ") != strings.Join(tt.attach, " ") {
			t.Errorf("SetLatency(%q, %v): %+v, attach %q", tt.in, tt.named, a, got)
		}
	}
}
