package unwind_test

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/unwind"
)

// linkedAt maps every address to one Table, of an executable that is not
// position-independent: run-time and link-time addresses are the same.
type linkedAt struct{ t *unwind.Table }

func (m linkedAt) Lookup(pc uint64) (*unwind.Table, uint64, bool) { return m.t, 0, true }

// A stack copied at the first instruction of leaf, in a program built
// without frame pointers (testdata/frameless.c): leaf has no frame of its
// own, middle one of 40 bytes, main one of 8, and the call-frame
// information says so. (A Process is the Mapper of a live process.)
func ExampleUnwind() {
	const path = "testdata/frameless"
	t, err := unwind.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	const sp = 0x7ffc0000
	stack := make([]byte, 72)
	binary.LittleEndian.PutUint64(stack[0:], 0x401187)  // into middle, after its call of leaf
	binary.LittleEndian.PutUint64(stack[48:], 0x40102e) // into main, after its call of middle
	// main's return address, at 64, is 0: the outermost frame here.
	pcs, err := unwind.Unwind(nil, elf.EM_X86_64, &unwind.Stack{
		Regs:  unwind.Regs{PC: 0x401130, SP: sp},
		Bytes: stack,
	}, linkedAt{t}, 16)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pc := range pcs {
		fmt.Printf("%#x %s\n", pc, name(path, pc))
	}
	// Output:
	// 0x401130 leaf+0x0
	// 0x401187 middle+0x37
	// 0x40102e main+0xe
}

// The rules in effect at an address: in the body of middle, after it
// took 40 bytes of stack, the CFA (the stack pointer before the call)
// is 48 bytes above the stack pointer, and the return address is saved
// just below it.
func ExampleTable_Row() {
	t, err := unwind.Open("testdata/frameless")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pc := range []uint64{0x401150, 0x401187} {
		row, err := t.Row(pc)
		if err != nil {
			fmt.Println(err)
			return
		}
		ra := row.Regs[row.RA]
		fmt.Printf("%#x: CFA = r%d%+d, return address: %v CFA%+d\n", pc, row.CFA.Reg, row.CFA.Off, ra.Kind, ra.Off)
	}
	// Output:
	// 0x401150: CFA = r7+8, return address: offset CFA-8
	// 0x401187: CFA = r7+48, return address: offset CFA-8
}

// name names the function of path at pc.
func name(path string, pc uint64) string {
	f, err := elf.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	syms, _ := f.Symbols()
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && pc >= s.Value && pc < s.Value+s.Size {
			return fmt.Sprintf("%s+%#x", s.Name, pc-s.Value)
		}
	}
	return "?"
}
