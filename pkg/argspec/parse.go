package argspec

import (
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// parseOperand sets Kind and the operand fields of a from op, in the
// syntax of a.Machine. A switch rather than a table of functions lets a
// stay on the stack.
func parseOperand(a *Arg, op string) error {
	switch a.Machine {
	case elf.EM_X86_64:
		return parseX86(a, op, amd64Regs(), amd64Float())
	case elf.EM_386:
		return parseX86(a, op, i386Regs(), i386Float())
	case elf.EM_AARCH64:
		return parseARM64(a, op)
	case elf.EM_ARM:
		return parseARM(a, op)
	case elf.EM_RISCV:
		return parseRISCV(a, op)
	case elf.EM_S390:
		return parseS390(a, op)
	case elf.EM_PPC64:
		return parsePPC(a, op, ppc64Regs())
	case elf.EM_PPC:
		return parsePPC(a, op, ppcRegs())
	case elf.EM_LOONGARCH:
		return parseLoong(a, op)
	}
	return errors.New("machine not supported")
}

// appendLocation appends the canonical operand of a.
func appendLocation(b []byte, a *Arg) []byte {
	switch a.Machine {
	case elf.EM_X86_64, elf.EM_386:
		return formatX86(b, a)
	case elf.EM_AARCH64:
		return formatARM64(b, a)
	case elf.EM_ARM:
		return formatARM(b, a)
	case elf.EM_RISCV:
		return formatRISCV(b, a)
	case elf.EM_S390:
		return formatS390(b, a)
	case elf.EM_PPC64, elf.EM_PPC:
		return formatPPC(b, a)
	case elf.EM_LOONGARCH:
		return formatLoong(b, a)
	}
	return b
}

func isX86(m elf.Machine) bool { return m == elf.EM_X86_64 || m == elf.EM_386 }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// Split splits an argument string into tokens at runs of whitespace.
// Whitespace inside brackets or parentheses does not split, so that
// aarch64 operands such as "[sp, 12]" stay whole. A bracket left open runs
// the token to the end of s.
func Split(s string) []string {
	n := countTokens(s)
	if n == 0 {
		return nil
	}
	toks := make([]string, 0, n)
	for start, end, i := nextToken(s, 0); i >= 0; start, end, i = nextToken(s, i) {
		toks = append(toks, s[start:end])
	}
	return toks
}

func countTokens(s string) int {
	n := 0
	for _, _, i := nextToken(s, 0); i >= 0; _, _, i = nextToken(s, i) {
		n++
	}
	return n
}

// nextToken returns the bounds of the token at or after i and where to
// continue scanning, or next < 0 when there is no further token.
func nextToken(s string, i int) (start, end, next int) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return 0, 0, -1
	}
	start = i
	depth := 0
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[' || c == '(':
			depth++
		case (c == ']' || c == ')') && depth > 0:
			depth--
		case isSpace(c) && depth == 0:
			return start, i, i
		}
	}
	end = len(s)
	for end > start && isSpace(s[end-1]) {
		end--
	}
	return start, end, end
}

// ParseArgs parses a whole argument string for machine m. The result holds
// exactly one Arg per token of Split(s), in order; an argument that cannot
// be decoded has Err set and does not disturb the others.
func ParseArgs(s string, m elf.Machine) []Arg {
	if countTokens(s) == 0 {
		return nil
	}
	return AppendArgs(nil, s, m)
}

// AppendArgs is like ParseArgs but appends the arguments to dst and
// returns the extended slice, so that a caller going through many probes
// can reuse one slice.
func AppendArgs(dst []Arg, s string, m elf.Machine) []Arg {
	dst = slices.Grow(dst, countTokens(s))
	for start, end, i := nextToken(s, 0); i >= 0; start, end, i = nextToken(s, i) {
		dst = append(dst, Arg{})
		parseInto(&dst[len(dst)-1], s[start:end], m)
	}
	return dst
}

// ParseArg parses one argument token for machine m. When the token cannot
// be decoded, the returned Arg has Err set to the returned error, an *Error.
func ParseArg(tok string, m elf.Machine) (Arg, error) {
	var a Arg
	if err := parseInto(&a, tok, m); err != nil {
		return a, err
	}
	return a, nil
}

// parseInto sets *a to the Arg for tok and returns its Err.
func parseInto(a *Arg, tok string, m elf.Machine) error {
	*a = Arg{Raw: tok, Machine: m}
	err := parseArg(a, tok)
	if err == nil {
		return nil
	}
	e := &Error{Arg: tok, Machine: m, Msg: err.Error()}
	// Of a token whose operand failed, only the size prefix is kept.
	*a = Arg{Raw: tok, Machine: m, Size: a.Size, Signed: a.Signed, Float: a.Float, Err: e}
	return e
}

func parseArg(a *Arg, tok string) error {
	if tok == "" {
		return errors.New("empty argument")
	}
	pre, op, sized := cutPrefix(tok)
	if sized {
		if err := parsePrefix(a, pre); err != nil {
			return err
		}
	}
	if op == "" {
		return errors.New("missing operand")
	}
	if i := strings.IndexByte(op, '@'); i >= 0 {
		// sym@GOTOFF is the one relocation operator compilers put in
		// probe operands that can be read from the ELF file: x86 PIC
		// code's own data, relative to the GOT its base register holds.
		rest, found := strings.CutPrefix(op[i:], "@"+RelocGOTOFF)
		if !found || !isX86(a.Machine) || strings.IndexByte(rest, '@') >= 0 {
			return fmt.Errorf("relocation operator in %q not supported", op)
		}
		a.Reloc = RelocGOTOFF
		op = op[:i] + rest
		if op == "" {
			return fmt.Errorf("@%s without an operand", RelocGOTOFF)
		}
	}
	return parseOperand(a, op)
}

// cutPrefix splits a token at its first '@'. Without one, the whole token
// is the operand.
func cutPrefix(tok string) (pre, op string, sized bool) {
	if i := strings.IndexByte(tok, '@'); i >= 0 {
		return tok[:i], tok[i+1:], true
	}
	return "", tok, false
}

// parsePrefix decodes "[-]N[f]": sign, size in bytes, floating point.
func parsePrefix(a *Arg, pre string) error {
	s := pre
	signed := s != "" && s[0] == '-'
	if signed {
		s = s[1:]
	}
	float := s != "" && s[len(s)-1] == 'f'
	if float {
		s = s[:len(s)-1]
	}
	if s == "" {
		return errors.New("missing size")
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || i >= 3 || i == 0 && c == '0' {
			return fmt.Errorf("bad size %q", pre)
		}
		n = n*10 + int(c-'0')
	}
	switch n {
	case 1, 2, 4, 8, 12, 16, 24:
		a.Size, a.Signed, a.Float = n, signed, float
		return nil
	}
	return fmt.Errorf("bad size %d", n)
}
