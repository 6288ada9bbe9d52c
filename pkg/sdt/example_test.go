package sdt_test

import (
	"fmt"
	"log"

	"github.com/sdtkit/sdtkit/pkg/sdt"
)

// A program defines its probes once, loads them, and fires them where
// something happens, computing the arguments only while traced. A tracer
// then sees goapp:request in the process:
//
//	sdtattach -p PID 'goapp:request(_,str)'
//	bpftrace -p PID -e 'usdt:*:goapp:request { printf("%d %s\n", arg0, str(arg1)); }'
func Example() {
	p, err := sdt.NewProvider("goapp")
	if err != nil {
		log.Fatal(err)
	}
	request, err := p.AddProbe("request", sdt.Int64, sdt.String)
	if err != nil {
		log.Fatal(err)
	}
	if err := p.Load(); err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	for id := int64(1); id <= 3; id++ {
		if request.Enabled() {
			if err := request.Fire(id, fmt.Sprintf("/item/%d", id)); err != nil {
				log.Print(err)
			}
		}
	}
}
