package eventtext_test

import (
	"os"

	"github.com/sdtkit/sdtkit/pkg/eventtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func ExampleView() {
	v := eventtext.NewView(os.Stdout, eventtext.TimeRel)
	took, _ := eventtext.ParseFormat("%s took %dns")
	v.WriteEvent(&ndjson.Event{
		TS: 1718000000_000000000, PID: 42, TID: 42, Comm: "server", Provider: "app", Name: "request__start",
		Args: []ndjson.Value{{Kind: ndjson.Uint, Uint: 7}, {Kind: ndjson.String, Str: "/index.html"}},
	}, nil)
	v.WriteLost(3)
	v.WriteEvent(&ndjson.Event{
		TS: 1718000000_001500000, PID: 42, TID: 43, Comm: "server-worker-1", Provider: "app", Name: "request__done",
		Args: []ndjson.Value{{Kind: ndjson.String, Str: "/index.html"}, {Kind: ndjson.Uint, Uint: 1500000}},
	}, took)
	v.WriteEvent(&ndjson.Event{
		TS: 1718000001_250000000, PID: 977, TID: 977, Comm: "cron\x1b[2J", Provider: "libc", Name: "memory_sbrk_more",
		Fields: []ndjson.Field{{Name: "size", Value: ndjson.Value{Kind: ndjson.Uint, Uint: 4096}}},
	}, nil)
	// Output:
	// TIME       PID     TID     COMM            PROBE                    ARGS
	// 0.000000   42      42      server          app:request__start       7 /index.html
	// WARNING: lost 3 events
	// 0.001500   42      43      server-worker-1 app:request__done        /index.html took 1500000ns
	// 1.250000   977     977     "cron\x1b[2J"   libc:memory_sbrk_more    size=4096
}
