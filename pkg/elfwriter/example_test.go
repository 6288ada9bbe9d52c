package elfwriter_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
	"github.com/sdtkit/sdtkit/pkg/stapsdt"
)

// A program that fires probe demo:hello once, with 42 in %edi, and exits.
func Example() {
	f := elfwriter.New(elfwriter.Exec)
	start := f.Func("_start")
	f.SetEntry(start)
	a := f.AMD64()
	a.MovImm(elfwriter.RDI, 42)
	pc := a.Nop()
	a.MovImm(elfwriter.RAX, 231) // exit_group
	a.MovImm(elfwriter.RDI, 0)
	a.Syscall()
	f.End(start)
	f.AddNote(elfwriter.Note{Provider: "demo", Name: "hello", Args: "-4@%edi", PC: pc})

	im, err := f.Link()
	if err != nil {
		log.Fatal(err)
	}
	sf, err := stapsdt.NewFile(bytes.NewReader(im.Bytes))
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range sf.Sites {
		fmt.Printf("%s:%s pc=%#x offset=%#x base=%#x args=%q\n", p.Provider, p.Name, p.PC, p.PCOffset, p.Base, p.Args)
	}
	// Output:
	// demo:hello pc=0x401007 offset=0x1007 base=0x401018 args="-4@%edi"
}
