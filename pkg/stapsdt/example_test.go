package stapsdt_test

import (
	"debug/elf"
	"fmt"
	"log"

	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

func ExampleOpen() {
	// testdata/demo is built by testdata/build.sh from demo.c and demo.d.
	f, err := stapsdt.Open("testdata/demo")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range f.Sites {
		fmt.Printf("%s:%s pc=%#x offset=%#x semaphore=%#x args=%q\n",
			p.Provider, p.Name, p.PC, p.PCOffset, p.Semaphore, p.Args)
	}
	// Output:
	// demo:start pc=0x4010a8 offset=0x10a8 semaphore=0x404020 args="-4@%ebx 8@0(%r13)"
	// demo:tick pc=0x4010c0 offset=0x10c0 semaphore=0x404022 args="-8@%rbx"
	// demo:tick pc=0x4010fe offset=0x10fe semaphore=0x404022 args="-8@%rax"
}

func ExampleSite_HasSemaphore() {
	f, err := stapsdt.Open("testdata/demo")
	if err != nil {
		log.Fatal(err)
	}
	p := f.Sites[0]
	if p.HasSemaphore() {
		// A uprobe's reference counter is given as a file offset.
		fmt.Printf("%s:%s is enabled through the counter at file offset %#x\n", p.Provider, p.Name, p.SemaphoreOffset)
	}
	// Output:
	// demo:start is enabled through the counter at file offset 0x3020
}

// Files reads a file, or each member of a static library, as readelf -n
// lists them; an error does not end the loop.
func ExampleFiles() {
	for nf, err := range stapsdt.Files("testdata/demo") {
		if err != nil {
			log.Print(err)
		}
		if nf == nil {
			continue
		}
		for _, p := range nf.File.Sites {
			fmt.Printf("%s: %s:%s at file offset %#x\n", nf.Name, p.Provider, p.Name, p.PCOffset)
		}
	}
	// Output:
	// testdata/demo: demo:start at file offset 0x10a8
	// testdata/demo: demo:tick at file offset 0x10c0
	// testdata/demo: demo:tick at file offset 0x10fe
}

func ExampleClassifyInsn() {
	for _, b := range [][]byte{
		{0x90, 0xc3},                         // sys/sdt.h
		{0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3}, // package sdt, where the kernel optimizes it
		{0x90, 0x0f, 0x1f, 0x44, 0x00, 0x00}, // libbpf's usdt.h, early 2026
		{0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc3}, // libbpf's usdt.h since
		{0xcc, 0x1f, 0x44, 0x00, 0x00},                                           // a breakpoint, read from a process
	} {
		fmt.Println(stapsdt.ClassifyInsn(b, elf.EM_X86_64, elf.ELFDATA2LSB))
	}
	// Output:
	// nop
	// nop5
	// nop+nop5
	// nop+nop10
	// other
}
