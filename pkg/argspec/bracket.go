package argspec

import (
	"fmt"
	"strings"
)

// The Arm machines share the bracketed memory syntax: "[base]",
// "[base, off]" or "[base, #off]", "[base, index]" and
// "[base, index, lsl n]". They differ in whether numbers carry '#'.

// parseBracket decodes a bracketed operand. addr reports whether a
// register may serve as base or index.
func parseBracket(a *Arg, op string, gp regTable, addr func(r Reg, index bool) bool) error {
	if op[len(op)-1] != ']' {
		return fmt.Errorf("bad memory operand %q", op)
	}
	var parts [3]string
	n, ok := splitList(op[1:len(op)-1], parts[:])
	if !ok {
		return fmt.Errorf("bad memory operand %q", op)
	}
	base, ok := gp.lookup(parts[0])
	if !ok {
		return unknownReg(parts[0])
	}
	if !addr(base, false) {
		return fmt.Errorf("bad base register %q", parts[0])
	}
	a.Kind, a.Base = Memory, base
	if n == 1 {
		return nil
	}
	if p, hashed := strings.CutPrefix(parts[1], "#"); hashed || p != "" && isNumStart(p[0]) {
		if p == "" || n > 2 {
			return fmt.Errorf("bad memory operand %q", op)
		}
		if strings.HasPrefix(p, ":") {
			// gcc -O2 on aarch64 writes "[x5, #:lo12:.LANCHOR0]": the
			// low bits of a label's address, a number only the linker
			// knew, of a label no symbol table keeps.
			return fmt.Errorf("offset %q is a relocation of a link-time address, which the note does not resolve", p)
		}
		off, err := parseOffset(p)
		if err != nil {
			return err
		}
		a.Offset = off
		return nil
	}
	index, ok := gp.lookup(parts[1])
	if !ok {
		return unknownReg(parts[1])
	}
	if !addr(index, true) {
		return fmt.Errorf("index register %q not supported", parts[1])
	}
	a.Kind, a.Index, a.Scale = SIB, index, 1
	if n == 3 {
		if a.Scale, ok = parseShift(parts[2]); !ok {
			return fmt.Errorf("shift %q not supported", parts[2])
		}
	}
	return nil
}

// parseShift decodes "lsl n" or "lsl #n" into the scale 1<<n.
func parseShift(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "lsl")
	if !ok || rest == "" || !isSpace(rest[0]) {
		return 0, false
	}
	rest = strings.TrimPrefix(cutSpace(rest), "#")
	if len(rest) != 1 || rest[0] < '0' || rest[0] > '3' {
		return 0, false
	}
	return 1 << (rest[0] - '0'), true
}

// formatBracket writes "[base]", "[base, off]", "[base, index]" or
// "[base, index, lsl n]", with '#' before numbers when hash is set.
func formatBracket(b []byte, a *Arg, hash bool) []byte {
	b = append(append(b, '['), a.Base.Name...)
	switch {
	case a.Kind == SIB:
		b = append(append(b, ", "...), a.Index.Name...)
		if a.Scale != 1 {
			b = append(b, ", lsl "...)
			if hash {
				b = append(b, '#')
			}
			sh := byte('0')
			for s := a.Scale; s > 1; s >>= 1 {
				sh++
			}
			b = append(b, sh)
		}
	case a.Offset != 0:
		b = append(b, ", "...)
		if hash {
			b = append(b, '#')
		}
		b = appendOffset(b, a.Offset)
	}
	return append(b, ']')
}
