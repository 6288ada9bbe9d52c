package sitetable

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	args := []Arg{{Type: "s32", Location: "-4(%rbp)"}, {Raw: "8@%foo", Bad: true}}
	for _, tt := range []struct {
		name string
		live bool
		rows []Row
		want string
	}{
		{"file", false, []Row{
			{File: "prog", Provider: "p", Name: "q", PC: 0x401000, Insn: "nop", Args: args},
			{File: "prog", Provider: "p", Name: "longer", PC: 0x401010, Semaphore: 0x404000, HasSemaphore: true, Insn: "nop+nop10"},
			{File: "prog.o", Provider: "p", Name: "q", PC: 0x10},
		}, `FILE    PROVIDER  NAME    PC        SEMAPHORE  INSN       ARGS
prog    p         q       0x401000  -          nop        s32@-4(%rbp) ?@8@%foo
prog    p         longer  0x401010  0x404000   nop+nop10  
prog.o  p         q       0x10      -          -          
`},
		{"process", true, []Row{
			{PID: 7, File: "prog", Provider: "p", Name: "q", PC: 0x7f00, Insn: "nop", Args: args[:1]},
			{PID: 7, File: "prog", Provider: "p", Name: "r", PC: 0x7f10, Semaphore: 0x7f80, HasSemaphore: true, SemaphoreValue: 2, Armed: true, Insn: "nop5"},
			{PID: 7, File: "prog", Provider: "p", Name: "s", PC: 0x7f20, Semaphore: 0x7f82, HasSemaphore: true, SemaphoreErr: true, ArmedErr: true, Insn: "nop"},
		}, `PID  FILE  PROVIDER  NAME  ADDR    SEMAPHORE  VALUE  ARMED  INSN  ARGS
7    prog  p         q     0x7f00  -          -      no     nop   s32@-4(%rbp)
7    prog  p         r     0x7f10  0x7f80     2      yes    nop5  
7    prog  p         s     0x7f20  0x7f82     ?      ?      nop   
`},
		{"escaped", false, []Row{
			{File: "my prog", Provider: "\x1b]0;p\a", Name: "q\u009b", PC: 0x401000, Args: []Arg{{Raw: "8@\x1b[2J", Bad: true}}},
		}, `FILE       PROVIDER      NAME       PC        SEMAPHORE  INSN  ARGS
"my prog"  "\x1b]0;p\a"  "q\u009b"  0x401000  -          -     "?@8@\x1b[2J"
`},
	} {
		var b strings.Builder
		tab := New(&b, tt.live)
		for i := range tt.rows {
			if err := tab.Write(&tt.rows[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tab.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
	}
}
