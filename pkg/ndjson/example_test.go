package ndjson_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

func ExampleReader() {
	in := `{"ts":1718000000000000000,"pid":42,"tid":42,"comm":"demo","cpu":0,"provider":"demo","name":"tick","args":[18446744073709551615,-2,"0x1f",null]}
{"lost":3}
{"ts":1718000000
`
	r := ndjson.NewReader(strings.NewReader(in))
	var e ndjson.Event
	for {
		kind, err := r.Read(&e)
		if err == io.EOF {
			break
		}
		switch {
		case err != nil:
			fmt.Println("skipped:", err)
		case kind == ndjson.KindLost:
			fmt.Println("lost", e.Lost)
		case kind == ndjson.KindEvent:
			fmt.Println(e.Provider, e.Name, e.Args)
		}
	}
	// Output:
	// demo tick [18446744073709551615 -2 0x1f ?]
	// lost 3
	// skipped: line 3: unexpected end of JSON input
}

func ExampleAppendEvent() {
	// A writer reuses its Event, with one Value per argument, and its
	// buffer: encoding allocates nothing.
	e := ndjson.Event{
		TS: 1718000000000000000, PID: 42, TID: 42, Comm: "demo", CPU: 0, Provider: "demo", Name: "tick",
		Args: []ndjson.Value{ndjson.IntValue(-2), ndjson.HexValue(0x1f), ndjson.StringValue("a\tb"), ndjson.FloatValue(0.5), {}},
	}
	var buf []byte
	buf = ndjson.AppendEvent(buf[:0], &e)
	buf = ndjson.AppendLost(buf, 3)
	os.Stdout.Write(buf)
	// Output:
	// {"ts":1718000000000000000,"pid":42,"tid":42,"comm":"demo","cpu":0,"provider":"demo","name":"tick","args":[-2,"0x1f","a\tb",0.5,null]}
	// {"lost":3}
}
