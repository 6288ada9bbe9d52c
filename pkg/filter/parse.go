package filter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNoFields is matched by the error of a field name compiled for a
// probe whose arguments have no names (Probe.Fields is false).
var ErrNoFields = errors.New("the probe has no fields")

// An Error reports what is wrong with an expression and the token at
// fault.
type Error struct {
	Pos   int    // byte offset of the token in the expression, from 0
	Token string // the token as written, "" at the end
	// Probe names the probe the expression was compiled for, when the
	// error is of that probe only (an argument it lacks).
	Probe string
	Err   error
}

func (e *Error) Error() string {
	tok := e.Token
	if tok == "" {
		tok = "end of expression"
	}
	if e.Probe != "" {
		return fmt.Sprintf("column %d: %s: %s: %v", e.Pos+1, tok, e.Probe, e.Err)
	}
	return fmt.Sprintf("column %d: %s: %v", e.Pos+1, tok, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// A KeyKind is what a comparison reads from a hit.
type KeyKind uint8

// Kinds of keys, numbered as usdt.h's enum f_key.
const (
	KeyPID  KeyKind = iota + 1 // the process ID
	KeyTID                     // the thread ID
	KeyComm                    // the thread's name
	KeyArg                     // an argument, by index or by field name
)

// maxComm is the most bytes of a thread name (TASK_COMM_LEN less the NUL).
const maxComm = 15

// MaxString is the most bytes of a string literal.
const MaxString = 32

// An Expr is a parsed expression, to be compiled for each probe.
type Expr struct {
	src  string
	root *node
}

// String returns the expression as given to Parse.
func (e *Expr) String() string { return e.src }

type nodeKind uint8

const (
	nodeOr nodeKind = iota
	nodeAnd
	nodeNot
	nodeCmp
)

// A node is a node of the syntax tree.
type node struct {
	kind nodeKind
	l, r *node // nodeOr, nodeAnd; l for nodeNot

	// nodeCmp: key op literal, whichever side each was written on.
	op     string // as if the key were on the left
	key    token
	keyK   KeyKind
	arg    int    // KeyArg by index; -1 for a field
	lit    token  // tokNumber or tokString
	num    uint64 // tokNumber
	signed bool   // tokNumber: written with a minus
}

// Parse parses an expression; the error is an *Error.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.errorf(t, "unexpected %s", what(t))
	}
	return &Expr{src: src, root: n}, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) errorf(t token, format string, a ...any) error {
	return &Error{Pos: t.pos, Token: t.text, Err: fmt.Errorf(format, a...)}
}

// maxDepth bounds the nesting of an expression, which programs bound
// anyway (MaxInsns), so that a hostile one cannot exhaust the stack.
const maxDepth = 64

func (p *parser) or(depth int) (*node, error) {
	return p.binary(depth, "||", nodeOr, p.and)
}

func (p *parser) and(depth int) (*node, error) {
	return p.binary(depth, "&&", nodeAnd, p.unary)
}

// binary parses operands, as operand does, joined by op, to the left.
func (p *parser) binary(depth int, op string, kind nodeKind, operand func(int) (*node, error)) (*node, error) {
	l, err := operand(depth)
	for err == nil && p.peek().kind == tokOp && p.peek().text == op {
		p.next()
		var r *node
		if r, err = operand(depth); err == nil {
			l = &node{kind: kind, l: l, r: r}
		}
	}
	return l, err
}

func (p *parser) unary(depth int) (*node, error) {
	t := p.peek()
	if depth > maxDepth {
		return nil, p.errorf(t, "nested more than %d deep", maxDepth)
	}
	if t.kind == tokOp && t.text == "!" {
		p.next()
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeNot, l: x}, nil
	}
	if t.kind == tokOp && t.text == "(" {
		p.next()
		x, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.text != ")" || c.kind != tokOp {
			return nil, p.errorf(c, "unexpected %s, want )", what(c))
		}
		return x, nil
	}
	return p.cmp()
}

// flipped is the operator with its operands swapped.
var flipped = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func (p *parser) cmp() (*node, error) {
	a := p.next()
	if a.kind != tokIdent && a.kind != tokNumber && a.kind != tokString {
		return nil, p.errorf(a, "unexpected %s, want a comparison", what(a))
	}
	op := p.next()
	if _, ok := flipped[op.text]; !ok || op.kind != tokOp {
		return nil, p.errorf(op, "unexpected %s, want ==, !=, <, <=, > or >=", what(op))
	}
	b := p.next()
	if b.kind != tokIdent && b.kind != tokNumber && b.kind != tokString {
		return nil, p.errorf(b, "unexpected %s, want a key or a literal", what(b))
	}
	n := &node{kind: nodeCmp, op: op.text, key: a, lit: b}
	switch {
	case a.kind == tokIdent && b.kind == tokIdent:
		return nil, p.errorf(b, "a key compares with a literal, not with another key")
	case a.kind != tokIdent && b.kind != tokIdent:
		return nil, p.errorf(a, "a comparison needs a key: pid, tid, comm, argN or a field")
	case b.kind == tokIdent:
		n.key, n.lit, n.op = b, a, flipped[op.text]
	}
	n.keyK, n.arg = parseKey(n.key.text)
	lit := n.lit
	if lit.kind == tokNumber {
		v, neg, err := parseNumber(lit.text)
		if err != nil {
			return nil, &Error{Pos: lit.pos, Token: lit.text, Err: err}
		}
		n.num, n.signed = v, neg
		if n.keyK == KeyComm {
			return nil, p.errorf(n.key, "a string, not a number: compare it with a string literal")
		}
		return n, nil
	}
	switch {
	case n.op != "==" && n.op != "!=":
		return nil, p.errorf(op, "strings compare with == and != only")
	case n.keyK == KeyPID || n.keyK == KeyTID:
		return nil, p.errorf(lit, "%s is a number, not a string", n.key.text)
	case len(lit.val) > MaxString:
		return nil, p.errorf(lit, "longer than %d bytes", MaxString)
	case n.keyK == KeyComm && len(lit.val) > maxComm:
		return nil, p.errorf(lit, "longer than comm, at most %d bytes", maxComm)
	case strings.IndexByte(lit.val, 0) >= 0:
		return nil, p.errorf(lit, "a NUL in a string")
	}
	return n, nil
}

// parseKey returns the kind of key name is and, for argN, N; -1 for a
// field name.
func parseKey(name string) (KeyKind, int) {
	switch name {
	case "pid":
		return KeyPID, 0
	case "tid":
		return KeyTID, 0
	case "comm":
		return KeyComm, 0
	}
	if d, ok := strings.CutPrefix(name, "arg"); ok && d != "" && (d == "0" || d[0] != '0') {
		if n, err := strconv.Atoi(d); err == nil && n < 1000 {
			return KeyArg, n
		}
	}
	return KeyArg, -1
}

// parseNumber parses a decimal, 0x hex, 0o octal or 0b binary integer,
// maybe negative, as the 64 bits compared.
func parseNumber(s string) (uint64, bool, error) {
	if abs, ok := strings.CutPrefix(s, "-"); ok {
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil || strings.HasPrefix(abs, "-") {
			return 0, false, errors.New("not a 64-bit integer")
		}
		return uint64(v), true, nil
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return 0, false, errors.New("not a 64-bit integer")
	}
	return v, false, nil
}

// what names a token in a message.
func what(t token) string {
	if t.kind == tokEOF {
		return "end of expression"
	}
	return strconv.Quote(t.text)
}
