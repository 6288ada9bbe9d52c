package symbolize_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// This symbolizes the addresses of JIT-compiled code by the perf map the
// compiler wrote; Process.Frame reads /tmp/perf-PID.map of a live process
// the same way.
func ExampleReadPerfMap() {
	const perfMap = `7f0000001000 40 LazyCompile:*handle /srv/app.js:12
7f0000001040 80 LazyCompile:*parse /srv/app.js:40
`
	m, err := symbolize.ReadPerfMap(strings.NewReader(perfMap))
	if err != nil {
		log.Fatal(err)
	}
	s, off, ok := m.Lookup(0x7f0000001050)
	fmt.Println(s.Name, off, ok)
	// Output:
	// LazyCompile:*parse /srv/app.js:40 16 true
}

// A stack as events carry it: innermost frame first, off with sym,
// file_offset with file.
func ExampleFrame() {
	stack := []symbolize.Frame{
		{Addr: 0x55f1c0a0116c, Sym: "inner", Off: 12, File: "/usr/bin/prog", FileOffset: 0x116c},
		{Addr: 0x55f1c0a01190, Sym: "main", Off: 0, File: "/usr/bin/prog", FileOffset: 0x1190},
		{Addr: 0x7f3a1c02a1ca, File: "/usr/lib/x86_64-linux-gnu/libc.so.6", FileOffset: 0x2a1ca},
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(stack); err != nil {
		log.Fatal(err)
	}
	for _, f := range stack {
		fmt.Println(f)
	}
	// Output:
	// [{"addr":94496807194988,"sym":"inner","off":12,"file":"/usr/bin/prog","file_offset":4460},{"addr":94496807195024,"sym":"main","off":0,"file":"/usr/bin/prog","file_offset":4496},{"addr":139887554765258,"file":"/usr/lib/x86_64-linux-gnu/libc.so.6","file_offset":172490}]
	// inner+0xc (/usr/bin/prog)
	// main+0x0 (/usr/bin/prog)
	// 0x7f3a1c02a1ca (libc.so.6+0x2a1ca)
}

// This resolves the functions of a running program: ELF symbols through
// its maps, JIT code through its perf map.
func ExampleProcess() {
	p, err := symbolize.NewProcess(os.Getpid(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range p.Frames([]uint64{0x401000}) {
		_ = f // f.Sym, f.Off, f.File
	}
}

// This reads the symbols of a file, with its debug file if installed
// under /usr/lib/debug, and finds the function at an address.
func ExampleOpen() {
	obj, err := symbolize.Open("/usr/bin/prog", nil)
	if err != nil {
		log.Fatal(err)
	}
	if s, off, ok := obj.Lookup(0x1139); ok {
		fmt.Printf("%s+%#x from %v\n", s.Demangled(), off, s.Table)
	}
}
