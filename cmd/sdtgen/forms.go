package main

import (
	"fmt"
	"strings"
)

// A form is the operand form an argument is placed in.
type form int

const (
	formReg form = iota
	formMem
	formSIB
	formRIP
	formImm
	formFloat
)

var formNames = []string{"reg", "mem", "sib", "rip", "imm", "float"}

func (f form) String() string { return formNames[f] }

// parseForms parses the --forms list, such as "reg,mem,imm".
func parseForms(s string) ([]form, error) {
	var forms []form
	for _, name := range strings.Split(s, ",") {
		found := false
		for i, n := range formNames {
			if name == n {
				forms = append(forms, form(i))
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("form %q: want one of %s", name, strings.Join(formNames, ", "))
		}
	}
	return forms, nil
}

// forArg returns the form an argument of type a takes when f is its turn:
// f itself, unless a cannot have it. A string is no constant (its address
// is not constant in a PIE), nor is a floating-point value (compilers
// place floating constants in memory, as in 8f@.LC0(%rip)), and only
// floating-point values are held in SSE registers.
func (f form) forArg(a argType) form {
	switch {
	case f == formImm && a.str:
		return formReg
	case f == formImm && a.float:
		return formRIP
	case f == formFloat && !a.float:
		return formReg
	}
	return f
}

// pass returns when an argument of form f is loaded: memory first, through
// %rax, then SSE registers, also through %rax, then general-purpose
// registers, %rax among them, so that no later load clobbers an earlier
// one.
func (f form) pass() int {
	switch f {
	case formFloat:
		return 1
	case formReg:
		return 2
	}
	return 0
}
