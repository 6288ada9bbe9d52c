package filter

import (
	"errors"
	"fmt"
	"strings"
)

// MaxInsns is the most instructions of a Program: the bound of the
// interpreter's loop in the kernel.
const MaxInsns = 32

// An Op is what an instruction does.
type Op uint8

// Operations, numbered as usdt.h's enum f_op.
const (
	OpEQ     Op = iota + 1 // key == Num
	OpNE                   // key != Num
	OpLT                   // key < Num
	OpLE                   // key <= Num
	OpGT                   // key > Num
	OpGE                   // key >= Num
	OpStrEQ                // the key's string is Str
	OpPrefix               // the key's string begins with Str
	OpNot                  // negates the top of the stack
	OpAnd                  // pops two truths, pushes their conjunction
	OpOr                   // pops two truths, pushes their disjunction
)

var numOps = map[string]Op{"==": OpEQ, "!=": OpNE, "<": OpLT, "<=": OpLE, ">": OpGT, ">=": OpGE}

// An Insn is one instruction of a Program. A comparison (OpEQ to
// OpPrefix) pushes its truth on the hit; the others combine truths.
type Insn struct {
	Op  Op
	Key KeyKind
	Arg int // KeyArg: the argument, from 0
	// Size, for a number argument, is the bytes kept of it, extended
	// with its sign when Signed; 0 keeps it as read and compares it
	// signed when the site's note says it is.
	Size   int
	Signed bool
	Num    uint64
	Str    string
}

// A Program is an expression compiled for one probe, in postfix order.
type Program struct {
	Insns []Insn
}

// An Arg is an argument of a probe as filters see it.
type Arg struct {
	// Name is the field name with --types, "" otherwise.
	Name string
	// String says that the argument points to a NUL-terminated string.
	String bool
	// Size and Signed are the type of a number argument; a Size of 0
	// means as the note says (see Insn).
	Size   int
	Signed bool
}

// A Probe is what a filter needs to know of a probe.
type Probe struct {
	Name   string // for messages: "./app:prov:name"
	Args   []Arg
	Fields bool // the arguments have names (--types declares the probe)
}

// Compile type-checks e against probe p and compiles it. An argument p
// lacks, a field it does not have, or a string compared with a number
// is an *Error naming the token and the probe.
func (e *Expr) Compile(p *Probe) (*Program, error) {
	prog := &Program{}
	if err := compile(e.root, p, prog); err != nil {
		return nil, err
	}
	return prog, nil
}

func compile(n *node, p *Probe, prog *Program) error {
	var err error
	switch n.kind {
	case nodeNot:
		if err = compile(n.l, p, prog); err == nil {
			err = emit(prog, Insn{Op: OpNot}, n.l)
		}
	case nodeAnd, nodeOr:
		op := OpAnd
		if n.kind == nodeOr {
			op = OpOr
		}
		if err = compile(n.l, p, prog); err == nil {
			if err = compile(n.r, p, prog); err == nil {
				err = emit(prog, Insn{Op: op}, n.r)
			}
		}
	case nodeCmp:
		var in Insn
		if in, err = compileCmp(n, p); err == nil {
			err = emit(prog, in, n)
			if err == nil && n.lit.kind == tokString && n.op == "!=" {
				err = emit(prog, Insn{Op: OpNot}, n)
			}
		}
	}
	return err
}

// emit appends in to prog; the error of a program too long points at a
// token of n.
func emit(prog *Program, in Insn, n *node) error {
	if len(prog.Insns) == MaxInsns {
		for n.kind != nodeCmp {
			n = n.l
		}
		return &Error{Pos: n.key.pos, Token: n.key.text, Err: fmt.Errorf("more than %d comparisons and operators", MaxInsns)}
	}
	prog.Insns = append(prog.Insns, in)
	return nil
}

func compileCmp(n *node, p *Probe) (Insn, error) {
	in := Insn{Key: n.keyK, Num: n.num}
	fail := func(format string, a ...any) (Insn, error) {
		return Insn{}, &Error{Pos: n.key.pos, Token: n.key.text, Probe: p.Name, Err: fmt.Errorf(format, a...)}
	}
	isString := n.keyK == KeyComm
	if n.keyK == KeyArg {
		j, err := argIndex(n, p)
		if err != nil {
			return fail("%v", err)
		}
		a := p.Args[j]
		in.Arg, in.Size, in.Signed, isString = j, a.Size, a.Signed, a.String
	}
	switch {
	case n.lit.kind == tokString && !isString:
		return fail("a number, not a string")
	case n.lit.kind == tokNumber && isString:
		return fail("a string, not a number: compare it with a string literal")
	case n.lit.kind == tokString:
		in.Op, in.Str = OpStrEQ, n.lit.val
		if n.lit.star {
			in.Op = OpPrefix
		}
	default:
		in.Op = numOps[n.op]
	}
	return in, nil
}

// argIndex returns the argument that the key of n names in p.
func argIndex(n *node, p *Probe) (int, error) {
	if n.arg >= 0 {
		switch {
		case len(p.Args) == 0:
			return 0, errors.New("the probe has no arguments")
		case n.arg >= len(p.Args) && len(p.Args) == 1:
			return 0, errors.New("the probe has 1 argument, arg0")
		case n.arg >= len(p.Args):
			return 0, fmt.Errorf("the probe has %d arguments (arg0 to arg%d)", len(p.Args), len(p.Args)-1)
		}
		return n.arg, nil
	}
	if !p.Fields {
		return 0, fmt.Errorf("not pid, tid, comm, argN, nor a field: %w", ErrNoFields)
	}
	var names []string
	for j, a := range p.Args {
		if a.Name == n.key.text {
			return j, nil
		}
		names = append(names, a.Name)
	}
	return 0, fmt.Errorf("no such field (the probe has %s)", strings.Join(names, ", "))
}
