package argspec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

var (
	errSyntax = errors.New("bad number")
	errRange  = errors.New("number out of range")
)

// parseUint parses decimal digits, or hex digits after "0x". Decimal with
// a leading zero is refused: the assembler would have read it as octal.
func parseUint(s string) (uint64, error) {
	if s == "" {
		return 0, errSyntax
	}
	base := uint64(10)
	if len(s) > 1 && s[0] == '0' {
		if s[1] != 'x' && s[1] != 'X' || len(s) == 2 {
			return 0, errSyntax
		}
		base, s = 16, s[2:]
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		var d uint64
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, errSyntax
		}
		if n > (math.MaxUint64-d)/base {
			return 0, errRange
		}
		n = n*base + d
	}
	return n, nil
}

// parseInt parses an optionally negative number that fits an int64.
func parseInt(s string) (int64, error) {
	neg := s != "" && s[0] == '-'
	if neg {
		s = s[1:]
	}
	u, err := parseUint(s)
	switch {
	case err != nil:
		return 0, err
	case neg && u > 1<<63, !neg && u > math.MaxInt64:
		return 0, errRange
	case neg:
		return int64(-u), nil
	}
	return int64(u), nil
}

// parseConst is parseInt that also takes positive values up to
// MaxUint64, kept as their int64 bit pattern: an unsigned 64-bit
// immediate can be written either way.
func parseConst(s string) (int64, error) {
	if s != "" && s[0] == '-' {
		return parseInt(s)
	}
	u, err := parseUint(s)
	return int64(u), err
}

// numError describes a failure of the parse functions above for s, a
// number of the given role ("offset", "constant").
func numError(role, s string, err error) error {
	if err == errRange {
		return fmt.Errorf("%s %q out of range", role, s)
	}
	return fmt.Errorf("bad %s %q", role, s)
}

func appendOffset(b []byte, off int64) []byte { return strconv.AppendInt(b, off, 10) }

func isSymStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '.'
}

func isSymChar(c byte) bool {
	return isSymStart(c) || '0' <= c && c <= '9' || c == '$'
}

// parseSymOff parses a displacement that may name a symbol: "", "16",
// "sym", "sym+16", "sym-16" or "16+sym".
func parseSymOff(s string) (sym string, off int64, err error) {
	if s == "" {
		return "", 0, nil
	}
	if !isSymStart(s[0]) {
		i := 0
		if s[0] == '-' {
			i++
		}
		for i < len(s) && isSymChar(s[i]) {
			i++
		}
		if off, err = parseInt(s[:i]); err != nil {
			return "", 0, numError("offset", s[:i], err)
		}
		if i == len(s) {
			return "", off, nil
		}
		if s[i] != '+' || !isSymbol(s[i+1:]) {
			return "", 0, fmt.Errorf("bad displacement %q", s)
		}
		return s[i+1:], off, nil
	}
	i := 1
	for i < len(s) && isSymChar(s[i]) {
		i++
	}
	sym, rest := s[:i], s[i:]
	switch {
	case rest == "":
		return sym, 0, nil
	case rest[0] == '+' && len(rest) > 1 && rest[1] != '-':
		off, err = parseInt(rest[1:])
	case rest[0] == '-':
		var u uint64
		if u, err = parseUint(rest[1:]); err == nil && u > 1<<63 {
			err = errRange
		}
		off = int64(-u)
	default:
		return "", 0, fmt.Errorf("bad displacement %q", s)
	}
	if err != nil {
		return "", 0, numError("offset", rest[1:], err)
	}
	return sym, off, nil
}

func isSymbol(s string) bool {
	if s == "" || !isSymStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isSymChar(s[i]) {
			return false
		}
	}
	return true
}

// appendSymOff appends the canonical "sym", "sym+16" or "sym-16".
func appendSymOff(b []byte, sym string, off int64) []byte {
	b = append(b, sym...)
	if off > 0 {
		b = append(b, '+')
	}
	if off != 0 {
		b = appendOffset(b, off)
	}
	return b
}
