package process_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/process"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// Lines of /proc/PID/maps for a library; ReadMaps(pid) gives the same for
// a live process.
const libMaps = `7f3a1c000000-7f3a1c026000 r--p 00000000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libdemo.so
7f3a1c026000-7f3a1c17c000 r-xp 00026000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libdemo.so
7f3a1c17c000-7f3a1c1cf000 r--p 0017c000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libdemo.so
7f3a1c1cf000-7f3a1c1d3000 r--p 001cf000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libdemo.so
7f3a1c1d3000-7f3a1c1d5000 rw-p 001d3000 fe:00 326269                     /usr/lib/x86_64-linux-gnu/libdemo.so
7f3a1c1d5000-7f3a1c1e2000 rw-p 00000000 00:00 0 
`

func ExampleParseMaps() {
	maps, err := process.ParseMaps(strings.NewReader(libMaps))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range maps {
		fmt.Printf("%#x-%#x %s offset=%#x exec=%v path=%q\n", m.Start, m.End, m.Perms, m.Offset, m.Executable(), m.Path)
	}
	// Output:
	// 0x7f3a1c000000-0x7f3a1c026000 r--p offset=0x0 exec=false path="/usr/lib/x86_64-linux-gnu/libdemo.so"
	// 0x7f3a1c026000-0x7f3a1c17c000 r-xp offset=0x26000 exec=true path="/usr/lib/x86_64-linux-gnu/libdemo.so"
	// 0x7f3a1c17c000-0x7f3a1c1cf000 r--p offset=0x17c000 exec=false path="/usr/lib/x86_64-linux-gnu/libdemo.so"
	// 0x7f3a1c1cf000-0x7f3a1c1d3000 r--p offset=0x1cf000 exec=false path="/usr/lib/x86_64-linux-gnu/libdemo.so"
	// 0x7f3a1c1d3000-0x7f3a1c1d5000 rw-p offset=0x1d3000 exec=false path="/usr/lib/x86_64-linux-gnu/libdemo.so"
	// 0x7f3a1c1d5000-0x7f3a1c1e2000 rw-p offset=0x0 exec=false path=""
}

func ExampleObject_Addr() {
	maps, err := process.ParseMaps(strings.NewReader(libMaps))
	if err != nil {
		log.Fatal(err)
	}
	const pid = 4242 // the process the maps were read from
	obj := process.Objects(pid, maps)[0]

	// File offsets as stapsdt.Probe gives them in PCOffset and
	// SemaphoreOffset.
	pc, _ := obj.Addr(0x2a0b4)
	sema, _ := obj.SemaphoreAddr(0x1d4010)
	_, ok := obj.Addr(0x300000)
	fmt.Printf("%s: %d mappings, probe site %#x, semaphore %#x, past the end mapped: %v\n",
		obj.Path, len(obj.Mappings), pc, sema, ok)
	// Output:
	// /usr/lib/x86_64-linux-gnu/libdemo.so: 5 mappings, probe site 0x7f3a1c02a0b4, semaphore 0x7f3a1c1d4010, past the end mapped: false
}

// This lists the probes of every file a process maps, with their runtime
// addresses, semaphore values, and whether a tracer has patched them.
func Example() {
	pid := 1234
	maps, err := process.ReadMaps(pid)
	if err != nil {
		log.Fatal(err)
	}
	mem, err := process.OpenMem(pid, false)
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()
	for _, obj := range process.Objects(pid, maps) {
		data, err := obj.Open()
		if err != nil {
			log.Print(err)
			continue
		}
		f, _ := stapsdt.Read(data, obj.Path) // the sites of the notes that could be read
		if f == nil {
			data.Close()
			continue // not an ELF file
		}
		r := process.SiteReader{Mem: mem, Object: &obj, File: f, Data: data}
		for i := range f.Sites {
			p := &f.Sites[i]
			st := r.Read(p)
			if st.ArmedErr != nil {
				log.Print(st.ArmedErr)
				continue
			}
			fmt.Printf("%s %s:%s %#x armed=%v", obj.Path, p.Provider, p.Name, st.Addr, st.Armed)
			if s := st.Semaphore; s != nil && s.Counter() {
				fmt.Printf(" semaphore=%d", s.Value)
			}
			fmt.Println()
		}
		data.Close()
	}
}
