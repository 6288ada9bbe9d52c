package stacks_test

import (
	"log"
	"os"

	"github.com/sdtkit/sdtkit/pkg/stacks"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// Two paths to one probe, innermost frame first as events carry them,
// written as folded stacks for flamegraph.pl, inferno or speedscope.
func ExampleSet_WriteFolded() {
	main := symbolize.Frame{Addr: 0x401190, Sym: "main", File: "/usr/bin/prog"}
	outer := symbolize.Frame{Addr: 0x401150, Sym: "outer", File: "/usr/bin/prog"}
	other := symbolize.Frame{Addr: 0x401170, Sym: "other", File: "/usr/bin/prog"}
	inner := symbolize.Frame{Addr: 0x40112c, Sym: "inner", File: "/usr/bin/prog"}

	var s stacks.Set
	s.Add([]symbolize.Frame{inner, outer, main}, 700)
	s.Add([]symbolize.Frame{inner, other, main}, 300)
	if err := s.WriteFolded(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// main;other;inner 300
	// main;outer;inner 700
}

// The same counts as a pprof profile, which go tool pprof -http draws as
// a flame graph.
func ExampleSet_WritePprof() {
	inner := symbolize.Frame{Addr: 0x40112c, Sym: "inner", File: "/usr/bin/prog", BuildID: "5e1f00aa"}
	main := symbolize.Frame{Addr: 0x401190, Sym: "main", File: "/usr/bin/prog", BuildID: "5e1f00aa"}

	var s stacks.Set
	s.Add([]symbolize.Frame{inner, main}, 1000)
	f, err := os.Create(os.DevNull)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := s.WritePprof(f); err != nil {
		log.Fatal(err)
	}
	// Output:
}
