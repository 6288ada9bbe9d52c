package tracefs

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// What the fetch functions of all machines share.

var (
	errSIB   = errors.New("memory indexed by a register: fetch arguments have no such form")
	errFloat = errors.New("floating-point: fetch arguments have no such type")
)

// symbol returns the address of the symbol name that an operand of the
// site at pc names.
func symbol(name string, pc uint64, o *Options) (uint64, error) {
	if o.Symbols == nil {
		return 0, fmt.Errorf("symbol %q: no symbol table given", name)
	}
	return o.Symbols.SymbolAddr(name, pc)
}

// memory returns the fetch argument of the memory at reg plus off.
func memory(off int64, reg string, size int, signed bool) string {
	sign := "+"
	if off < 0 {
		sign = ""
	}
	return sign + strconv.FormatInt(off, 10) + "(" + reg + "):" + typeName(orEight(size), signed)
}

func orEight(size int) int {
	if size == 0 {
		return 8
	}
	return size
}

// typeName returns the fetch type of an integer of size bytes.
func typeName(size int, signed bool) string {
	t := "u"
	if signed {
		t = "s"
	}
	return t + strconv.Itoa(size*8)
}

// checkOperand refuses what no fetch argument reads, whatever the
// machine: an operand that did not parse, a floating-point value, a
// value that no integer fetch type holds (a long double or a small
// struct passed by value).
func checkOperand(a *argspec.Arg) error {
	switch {
	case a.Err != nil:
		return a.Err
	case a.Float:
		return errFloat
	}
	switch a.Size {
	case 0, 1, 2, 4, 8:
		return nil
	}
	return fmt.Errorf("%d-byte value: fetch types are at most 8 bytes", a.Size)
}

// immediate returns the fetch argument of the constant v, of size bytes,
// on a machine whose registers are word bytes. The kernel keeps an
// immediate in an unsigned long: a 32-bit kernel's holds 32 bits, and
// widens it to 64 without its sign.
func immediate(v int64, size int, signed bool, word int) (string, error) {
	if word == 4 {
		switch {
		case v < math.MinInt32 || v > math.MaxUint32:
			return "", fmt.Errorf("constant %d: a 32-bit kernel's immediates hold 32 bits", v)
		case size == 8 && v < 0:
			return "", fmt.Errorf("8-byte constant %d: a 32-bit kernel widens immediates without their sign", v)
		}
	}
	return `\` + strconv.FormatInt(v, 10) + ":" + typeName(size, signed), nil
}
