package filter

import (
	"strings"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// A Hit is what a Program is evaluated on: a probe hit as the kernel
// sees it.
type Hit struct {
	PID, TID uint32
	Comm     string
	Args     []HitArg
}

// A HitArg is an argument of a Hit.
type HitArg struct {
	Num uint64 // as read: a string argument's is its address
	// Signed says that the site's note gives the argument a sign.
	Signed bool
	Str    string // for a string argument
	Unread bool   // the argument could not be read
}

// Eval reports whether the hit h passes the program: what the kernel's
// interpreter (pkg/bpf/usdt.h, filter_hit) computes, instruction by
// instruction, so that tests can check one against the other. A
// comparison on an argument that cannot be read is false.
func (p *Program) Eval(h *Hit) bool {
	var stack uint64
	for i := range p.Insns {
		in := &p.Insns[i]
		switch in.Op {
		case OpNot:
			stack ^= 1
		case OpAnd:
			top := stack & 1
			stack >>= 1
			stack &= ^uint64(1) | top
		case OpOr:
			top := stack & 1
			stack >>= 1
			stack |= top
		default:
			b := uint64(0)
			if in.eval(h) {
				b = 1
			}
			stack = stack<<1 | b
		}
	}
	return stack&1 != 0
}

func (in *Insn) eval(h *Hit) bool {
	var v uint64
	sign := false
	switch in.Key {
	case KeyPID:
		v = uint64(h.PID)
	case KeyTID:
		v = uint64(h.TID)
	case KeyComm:
		return in.match(h.Comm)
	case KeyArg:
		if in.Arg >= len(h.Args) || h.Args[in.Arg].Unread {
			return false
		}
		a := &h.Args[in.Arg]
		if in.Op == OpStrEQ || in.Op == OpPrefix {
			return in.match(a.Str)
		}
		v, sign = a.Num, a.Signed
		if in.Size > 0 {
			v, sign = argspec.Extend(v, in.Size, in.Signed), in.Signed
		}
	}
	x := in.Num
	switch in.Op {
	case OpEQ:
		return v == x
	case OpNE:
		return v != x
	case OpLT:
		return sign && int64(v) < int64(x) || !sign && v < x
	case OpLE:
		return sign && int64(v) <= int64(x) || !sign && v <= x
	case OpGT:
		return sign && int64(v) > int64(x) || !sign && v > x
	case OpGE:
		return sign && int64(v) >= int64(x) || !sign && v >= x
	}
	return false
}

func (in *Insn) match(s string) bool {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if in.Op == OpPrefix {
		return strings.HasPrefix(s, in.Str)
	}
	return s == in.Str
}
