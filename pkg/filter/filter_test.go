package filter

import (
	"strings"
	"testing"
)

// probe is a probe of four arguments: a signed 64-bit number as its note
// says, an unsigned 32-bit one, a signed 8-bit one by its type, and a
// string; named i, u, b, s.
var probe = &Probe{
	Name:   "./app:p:n",
	Fields: true,
	Args: []Arg{
		{Name: "i"},
		{Name: "u", Size: 4},
		{Name: "b", Size: 1, Signed: true},
		{Name: "s", String: true},
	},
}

func TestErrors(t *testing.T) {
	for _, tt := range []struct {
		src, want string
	}{
		{``, `column 1: end of expression: unexpected end of expression, want a comparison`},
		{`arg0`, `column 5: end of expression: unexpected end of expression, want ==, !=, <, <=, > or >=`},
		{`arg0 == 1 arg1`, `column 11: arg1: unexpected "arg1"`},
		{`arg0 == 1 &&`, `column 13: end of expression: unexpected end of expression, want a comparison`},
		{`(arg0 == 1`, `column 11: end of expression: unexpected end of expression, want )`},
		{`arg0 == 1)`, `column 10: ): unexpected ")"`},
		{`arg0 = 1`, `column 6: =: unexpected character`},
		{`arg0 == 1 & arg1 == 2`, `column 11: &: unexpected character`},
		{`arg0 == arg1`, `column 9: arg1: a key compares with a literal, not with another key`},
		{`1 == 2`, `column 1: 1: a comparison needs a key: pid, tid, comm, argN or a field`},
		{`arg0 == 18446744073709551616`, `column 9: 18446744073709551616: not a 64-bit integer`},
		{`arg0 == -9223372036854775809`, `column 9: -9223372036854775809: not a 64-bit integer`},
		{`arg0 == 12abc`, `column 9: 12abc: not a 64-bit integer`},
		{`comm == 1`, `column 1: comm: a string, not a number: compare it with a string literal`},
		{`pid == "x"`, `column 8: "x": pid is a number, not a string`},
		{`s < "x"`, `column 3: <: strings compare with == and != only`},
		{`comm == "0123456789abcdef"`, `column 9: "0123456789abcdef": longer than comm, at most 15 bytes`},
		{`s == "` + strings.Repeat("x", 33) + `"`, `column 6: "` + strings.Repeat("x", 33) + `": longer than 32 bytes`},
		{`s == "a*b"`, `column 6: "a*b: a * only ends a prefix ("GE*"); write \* for a star`},
		{`s == "ab`, `column 6: "ab: unterminated string`},
		{`s == "a\q"`, `column 6: "a\q: unknown escape \q`},
		{`s == "a\x00"`, `column 6: "a\x: unknown escape \x`},
		{strings.Repeat("!", 70) + `arg0 == 1`, `column 66: !: nested more than 64 deep`},
		// Errors of the probe.
		{`arg4 == 1`, `column 1: arg4: ./app:p:n: the probe has 4 arguments (arg0 to arg3)`},
		{`arg0 > 1 && nosuch == 1`, `column 13: nosuch: ./app:p:n: no such field (the probe has i, u, b, s)`},
		{`arg3 == 1`, `column 1: arg3: ./app:p:n: a string, not a number: compare it with a string literal`},
		{`"x" == i`, `column 8: i: ./app:p:n: a number, not a string`},
		{`arg01 == 1`, `column 1: arg01: ./app:p:n: no such field (the probe has i, u, b, s)`},
		{strings.Repeat(`i == 1 || `, 16) + `i == 1`, `column 161: i: more than 32 comparisons and operators`},
	} {
		e, err := Parse(tt.src)
		if err == nil {
			_, err = e.Compile(probe)
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: error %v, want %s", tt.src, err, tt.want)
		}
	}
	e, _ := Parse(`arg0 == 1`)
	if _, err := e.Compile(&Probe{Name: "x"}); err == nil || err.Error() != `column 1: arg0: x: the probe has no arguments` {
		t.Errorf("no arguments: %v", err)
	}
	e, _ = Parse(`name == 1`)
	if _, err := e.Compile(&Probe{Name: "x", Args: make([]Arg, 1)}); err == nil || !strings.Contains(err.Error(), "the probe has no fields") {
		t.Errorf("no fields: %v", err)
	}
}

// hits are a few hits of probe; arg0 is the index.
var hits = []Hit{
	{PID: 10, TID: 10, Comm: "main", Args: []HitArg{{Num: 0, Signed: true}, {Num: 1}, {Num: 0xff}, {Str: "GET"}}},
	{PID: 10, TID: 11, Comm: "worker", Args: []HitArg{{Num: 1, Signed: true}, {Num: 0xffffffff}, {Num: 1}, {Str: "GETTER"}}},
	{PID: 10, TID: 12, Comm: "worker", Args: []HitArg{{Num: 2, Signed: true}, {Num: 1 << 32}, {Num: 0x180}, {Str: "POST"}}},
	{PID: 20, TID: 20, Comm: "main", Args: []HitArg{{Num: 3, Signed: true}, {Num: 5}, {Num: 5}, {Str: "abcdefghijklmnop"}}},
	{PID: 20, TID: 20, Comm: "main", Args: []HitArg{{Num: ^uint64(0), Signed: true}, {Unread: true}, {Num: 2}, {Unread: true}}},
}

func TestEval(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want string // the indexes of the hits that pass; 4 is the fifth
	}{
		{`arg0 == 1`, "1"},
		{`arg0 != 1`, "0 2 3 4"},
		{`arg0 < 1`, "0 4"}, // -1 is signed
		{`arg0 <= 1`, "0 1 4"},
		{`arg0 > 1`, "2 3"},
		{`arg0 >= -1`, "0 1 2 3 4"},
		{`u == 0xffffffff`, "1"},
		{`u == 0`, "2"}, // kept to 4 bytes
		{`u > 1`, "1 3"},
		{`u != 1`, "1 2 3"}, // unread: false, not true
		{`b < 0`, "0 2"},    // signed 8-bit by its type
		{`b == -128`, "2"},
		{`pid == 10`, "0 1 2"},
		{`tid != 10`, "1 2 3 4"},
		{`tid > 10 && pid == 10`, "1 2"},
		{`comm == "worker"`, "1 2"},
		{`comm == "w*"`, "1 2"},
		{`comm != "w*"`, "0 3 4"},
		{`s == "GET"`, "0"},
		{`s == "GET*"`, "0 1"},
		{`s != "GET*"`, "2 3 4"},
		{`s == "*"`, "0 1 2 3"},
		{`s == "abcdefgh*"`, "3"},
		{`s == "abcdefghijklmnop"`, "3"},
		{`s == "abcdefghijklmno"`, ""},
		{`!(arg0 == 1) && (pid == 20 || comm == "worker")`, "2 3 4"},
		{`arg0 == 0 || arg0 == 1 && pid == 20`, "0"},
		{`(arg0 == 0 || arg0 == 1) && pid == 10`, "0 1"},
		{`!!(arg0 == 2)`, "2"},
		{`5 > arg0 && 1 <= arg0`, "1 2 3"},
	} {
		e, err := Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		p, err := e.Compile(probe)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.src, err)
			continue
		}
		var got []string
		for i := range hits {
			if p.Eval(&hits[i]) {
				got = append(got, string(rune('0'+i)))
			}
			if tree := evalTree(e.root, probe, &hits[i]); tree != p.Eval(&hits[i]) {
				t.Errorf("%q on hit %d: program %v, tree %v", tt.src, i, !tree, tree)
			}
		}
		if s := strings.Join(got, " "); s != tt.want {
			t.Errorf("%q passes hits %q, want %q", tt.src, s, tt.want)
		}
	}
}

// evalTree evaluates the syntax tree of an expression on h, as a
// reference for the compiled program.
func evalTree(n *node, p *Probe, h *Hit) bool {
	switch n.kind {
	case nodeNot:
		return !evalTree(n.l, p, h)
	case nodeAnd:
		return evalTree(n.l, p, h) && evalTree(n.r, p, h)
	case nodeOr:
		return evalTree(n.l, p, h) || evalTree(n.r, p, h)
	}
	in, err := compileCmp(n, p)
	if err != nil {
		panic(err)
	}
	b := in.eval(h)
	if n.lit.kind == tokString && n.op == "!=" {
		b = !b
	}
	return b
}
