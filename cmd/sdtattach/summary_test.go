package main

import (
	"bytes"
	"log"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/probe"
)

func TestSummary(t *testing.T) {
	plan := &attach.Plan{Probes: []*probe.Probe{{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "q"}}}
	for _, tt := range []struct {
		events, lost, skipped uint64
		want                  string
	}{
		{5, 0, 0, "sdtattach: 5 events, 0 lost\nsdtattach: prog:p:q: 5 events\n"},
		{5, 2, 0, "sdtattach: 5 events, 2 lost\nsdtattach: prog:p:q: 5 events\n"},
		{5, 0, 3, "sdtattach: 5 events, 0 lost\n" +
			"sdtattach: 3 probe hits made no event (nested more than 4 deep on a CPU, or of an unknown site)\n" +
			"sdtattach: prog:p:q: 5 events\n"},
	} {
		var buf bytes.Buffer
		out := &output{events: tt.events, lost: tt.lost, skipped: tt.skipped, perProbe: []uint64{5}}
		summary(log.New(&buf, "sdtattach: ", 0), out, plan)
		if got := buf.String(); got != tt.want {
			t.Errorf("summary(%d events, %d lost, %d skipped) = %q, want %q", tt.events, tt.lost, tt.skipped, got, tt.want)
		}
	}
}
