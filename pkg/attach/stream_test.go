package attach

import (
	"bufio"
	"bytes"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/hit"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

func TestStreamerEvent(t *testing.T) {
	p := &probe.Probe{Target: &probe.Target{Name: "prog"}, Provider: "p", Name: "q"}
	plain := &Site{Probe: p, Args: []Arg{{}, {Type: probespec.Type{Kind: probespec.Drop}}, {Type: probespec.Type{Kind: probespec.String}}}}
	named := &Site{Probe: p, Fields: true, Args: []Arg{{Name: "n"}, {Type: probespec.Type{Kind: probespec.String}, Name: "s"}}}
	var stdout bytes.Buffer
	o := &streamer{bw: bufio.NewWriter(&stdout)}
	ev := Event{Site: plain, Event: hit.Event{Time: time.Unix(1, 5), PID: 10, TID: 11, CPU: 1, Comm: `a"b`, Args: []hit.Value{
		{Kind: hit.Int, Bits: uint64(1<<64 - 7), Size: 4},
		{Kind: hit.Uint, Bits: 9, Size: 8},
		{Kind: hit.String, Str: "long\n", Truncated: true, Size: 8},
	}}}
	if err := o.event(&ev); err != nil {
		t.Fatal(err)
	}
	ev.Event.Site, ev.Site = 1, named
	ev.Args = []hit.Value{{Kind: hit.NotRead, Size: 8}, {Kind: hit.String, Str: "<x>", Size: 8}}
	o.event(&ev)
	o.event(&ev)
	o.tick(3)
	o.tick(3)
	want := `{"ts":1000000005,"pid":10,"tid":11,"comm":"a\"b","cpu":1,"provider":"p","name":"q","args":[-7,"long\n"],"truncated":[1]}
{"ts":1000000005,"pid":10,"tid":11,"comm":"a\"b","cpu":1,"provider":"p","name":"q","args":[null,"<x>"],"fields":{"n":null,"s":"<x>"}}
{"ts":1000000005,"pid":10,"tid":11,"comm":"a\"b","cpu":1,"provider":"p","name":"q","args":[null,"<x>"],"fields":{"n":null,"s":"<x>"}}
{"lost":3}
`
	if got := stdout.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if o.n.ByProbe[0] != 3 || o.n.Events != 3 || o.n.Lost != 3 {
		t.Errorf("counts = %+v, want 3 events of probe 0 and 3 lost", o.n)
	}
}
