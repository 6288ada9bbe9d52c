package semaphore_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/probespec"
	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/semaphore"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// Lines of /proc/PID/maps for a PIE executable; process.ReadMaps(pid)
// gives the same for a live process.
const progMaps = `55d0c4a00000-55d0c4a01000 r--p 00000000 fe:00 1312 /srv/prog
55d0c4a01000-55d0c4a02000 r-xp 00001000 fe:00 1312 /srv/prog
55d0c4a02000-55d0c4a03000 r--p 00002000 fe:00 1312 /srv/prog
55d0c4a03000-55d0c4a04000 r--p 00002000 fe:00 1312 /srv/prog
55d0c4a04000-55d0c4a05000 rw-p 00003000 fe:00 1312 /srv/prog
`

// Locate turns a semaphore's file offset into its runtime address, and
// refuses addresses it would not be safe to write.
func ExampleLocate() {
	maps, err := process.ParseMaps(strings.NewReader(progMaps))
	if err != nil {
		log.Fatal(err)
	}
	obj := process.Objects(4242, maps)[0]
	for _, p := range []stapsdt.Site{
		{Provider: "p", Name: "tick", Semaphore: 0x4048, SemaphoreOffset: 0x3048},
		{Provider: "p", Name: "odd", Semaphore: 0x4049, SemaphoreOffset: 0x3049},
		{Provider: "p", Name: "plain"},
	} {
		addr, err := semaphore.Locate(&obj, &p)
		switch {
		case errors.Is(err, semaphore.ErrNoSemaphore):
			fmt.Printf("%s: no semaphore\n", p.Name)
		case errors.Is(err, semaphore.ErrRefused):
			fmt.Printf("%s: %v\n", p.Name, err)
		default:
			fmt.Printf("%s: semaphore at %#x\n", p.Name, addr)
		}
	}
	// Output:
	// tick: semaphore at 0x55d0c4a04048
	// odd: process 4242: /srv/prog: p:odd: semaphore at 0x55d0c4a04049: refused to write: semaphore at file offset 0x3049: not 2-byte aligned
	// plain: no semaphore
}

// This enables the probe p:tick in process 4242 for as long as it runs.
func Example() {
	const pid = 4242
	spec, err := probespec.Parse("p:tick")
	if err != nil {
		log.Fatal(err)
	}
	sems, err := semaphore.Find(pid, spec)
	if err != nil {
		log.Fatal(err)
	}
	p, err := semaphore.Open(pid, true)
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	for i := range sems {
		before, after, err := p.Add(&sems[i], 1)
		if err != nil && !errors.Is(err, semaphore.ErrChanged) {
			log.Fatal(err)
		}
		fmt.Printf("%s:%s in %s: %d -> %d\n", sems[i].Provider, sems[i].Name, sems[i].File, before, after)
	}
}
