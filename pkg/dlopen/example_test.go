package dlopen_test

import (
	"fmt"
	"log"
	"os"

	"github.com/sdtkit/sdtkit/pkg/dlopen"
	"github.com/sdtkit/sdtkit/pkg/probe"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Follow the libraries process 1234 loads, and name the probes plug:*
// of each before it runs.
func Example() {
	specs := []probespec.Spec{{Provider: "plug", Name: "*"}}
	f, err := dlopen.New(&dlopen.Options{PID: 1234, Specs: specs, Warn: func(err error) { log.Print(err) }})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Stop() // a nil Follower (a static program) follows nothing
	if f == nil {
		return
	}
	f.Start(nil, func(pid int, probes []*probe.Probe) {
		for _, p := range probes {
			fmt.Fprintf(os.Stdout, "process %d loaded %s, with %s:%s\n", pid, p.Target.Name, p.Provider, p.Name)
		}
	})
	// ...
}
