package argspec

import (
	"fmt"
	"strconv"
	"strings"
)

// A regTable maps a lowercase register name, without sigil, to its Reg.
type regTable map[string]Reg

func (t regTable) add(name, base string, off, size, shift int) {
	t[name] = Reg{Name: name, Base: base, Offset: off, Size: size, Shift: shift}
}

// addSeq adds prefix+N for N in [lo, hi], each its own base, at offset
// off(N) (-1 when off is nil).
func (t regTable) addSeq(prefix string, lo, hi, size int, off func(n int) int) {
	for n := lo; n <= hi; n++ {
		name := prefix + strconv.Itoa(n)
		o := -1
		if off != nil {
			o = off(n)
		}
		t.add(name, name, o, size, 0)
	}
}

// lookup finds name, ignoring ASCII case: assemblers accept %RAX as well.
func (t regTable) lookup(name string) (Reg, bool) {
	r, ok := t[name]
	if !ok && hasUpper(name) {
		r, ok = t[strings.ToLower(name)]
	}
	return r, ok
}

// hasUpper reports whether s is ASCII with an upper-case letter. Other
// text is left alone, lest case mapping turn it into a register name.
func hasUpper(s string) bool {
	upper := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return false
		case 'A' <= c && c <= 'Z':
			upper = true
		}
	}
	return upper
}

// cutSpace trims ASCII whitespace, the only kind Split keeps inside
// brackets.
func cutSpace(s string) string {
	for s != "" && isSpace(s[0]) {
		s = s[1:]
	}
	for s != "" && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// splitList splits the inside of brackets at commas, trimming each part.
// It returns false for more than max parts.
func splitList(s string, parts []string) (int, bool) {
	n := 0
	for {
		if n == len(parts) {
			return n, false
		}
		i := strings.IndexByte(s, ',')
		if i < 0 {
			parts[n] = cutSpace(s)
			return n + 1, true
		}
		parts[n] = cutSpace(s[:i])
		n++
		s = s[i+1:]
	}
}

func isNumStart(c byte) bool { return c == '-' || '0' <= c && c <= '9' }

// setConst makes a a Const of the number s.
func setConst(a *Arg, s string) error {
	v, err := parseConst(s)
	if err != nil {
		return numError("constant", s, err)
	}
	a.Kind, a.Offset = Const, v
	return nil
}

// setReg makes a a Register or FloatRegister named name; op is the operand
// as written, for the error.
func setReg(a *Arg, gp, fp regTable, name, op string) error {
	if r, ok := gp.lookup(name); ok {
		a.Kind, a.Base = Register, r
		return nil
	}
	if r, ok := fp.lookup(name); ok {
		a.Kind, a.Base = FloatRegister, r
		return nil
	}
	return unknownReg(op)
}

func unknownReg(s string) error { return fmt.Errorf("unknown register %q", s) }

// parseOffset parses a displacement, "" meaning 0.
func parseOffset(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	off, err := parseInt(s)
	if err != nil {
		return 0, numError("offset", s, err)
	}
	return off, nil
}
