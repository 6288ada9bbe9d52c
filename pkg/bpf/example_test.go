package bpf_test

import (
	"fmt"
	"log"

	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// This traces every probe of a binary and prints the events.
func Example() {
	const path = "/usr/bin/python3"
	f, err := stapsdt.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	// The symbols arguments name, from the debug file where python3
	// is stripped.
	syms, err := symbolize.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}

	var sites []bpf.Site
	for i, p := range f.Sites {
		if p.PCOffsetErr != nil || p.SemaphoreOffsetErr != nil {
			continue
		}
		spec, errs := bpf.NewSpec(uint32(i), p.PC, argspec.ParseArgs(p.Args, f.Machine), &bpf.SpecOptions{Symbols: syms})
		for _, err := range errs {
			log.Printf("%s:%s: %v", p.Provider, p.Name, err)
		}
		sites = append(sites, bpf.Site{Offset: p.PCOffset, RefCtrOffset: p.SemaphoreOffset, Spec: spec})
	}

	prog, err := bpf.Load(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer prog.Close()
	if err := prog.Attach(path, sites); err != nil {
		log.Fatal(err)
	}
	var ev bpf.Event
	for prog.Read(&ev) == nil {
		p := f.Sites[ev.Probe]
		fmt.Printf("%s %d %s:%s", ev.Time.Format("15:04:05.000000"), ev.PID, p.Provider, p.Name)
		for _, a := range ev.Args {
			switch a.Kind {
			case bpf.Int:
				fmt.Printf(" %d", a.Int())
			case bpf.String:
				fmt.Printf(" %q", a.Str)
			case bpf.NotRead:
				fmt.Printf(" ?")
			default:
				fmt.Printf(" %#x", a.Bits)
			}
		}
		fmt.Println()
	}
}
