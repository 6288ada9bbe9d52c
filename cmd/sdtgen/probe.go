package main

import "fmt"

// A probe is one probe of a provider, as the generator needs it.
type probe struct {
	provider string
	name     string
	args     []argType
}

func (p *probe) String() string { return p.provider + ":" + p.name }

// An argType is what the generator needs of an argument's C type.
type argType struct {
	ctype  string // as declared, such as "unsigned long long"
	size   int    // 1, 2, 4 or 8
	signed bool
	str    bool // a pointer to a NUL-terminated string
	float  bool // float (size 4) or double (size 8)
}

// maxArgs is the most arguments sys/sdt.h accepts.
const maxArgs = 12

func (p *probe) check() error {
	if len(p.args) > maxArgs {
		return fmt.Errorf("probe %s: %d arguments, at most %d", p, len(p.args), maxArgs)
	}
	return nil
}

// floatValue returns the value of floating-point argument i on iteration
// k, by the rule doc.go states: -(k*1000+i+0.5), exact in a float while
// k*1000+i is below 2^23.
func floatValue(k uint64, i int) float64 {
	return -(float64(k*1000+uint64(i)) + 0.5)
}

// value returns the value of integer argument i on iteration k, by the
// rule doc.go states: k*1000+i, negated for signed types, truncated to the
// argument's size. Signed values are returned sign-extended, unsigned ones
// zero-extended, both in an int64 (an unsigned 8-byte value above
// MaxInt64 cannot occur for realistic k).
func (a argType) value(k uint64, i int) int64 {
	v := k*1000 + uint64(i)
	if a.signed {
		v = -v
	}
	bits := uint(8 * a.size)
	if bits >= 64 {
		return int64(v)
	}
	v &= 1<<bits - 1
	if a.signed && v&(1<<(bits-1)) != 0 {
		v |= ^uint64(0) << bits
	}
	return int64(v)
}
