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
)

var formNames = []string{"reg", "mem", "sib", "rip", "imm"}

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
