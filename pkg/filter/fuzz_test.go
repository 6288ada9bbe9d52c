package filter

import (
	"errors"
	"testing"
)

// FuzzParse checks that no expression makes Parse or Compile panic, that
// errors point inside the expression, and that a program computes what
// its syntax tree does on every hit of the tests. Seeds are in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add(`arg0 == 1 && (comm == "w*" || !(s != "GET"))`)
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err == nil {
			var p *Program
			if p, err = e.Compile(probe); err == nil {
				if len(p.Insns) > MaxInsns {
					t.Fatalf("%q: %d instructions", src, len(p.Insns))
				}
				for i := range hits {
					if got, want := p.Eval(&hits[i]), evalTree(e.root, probe, &hits[i]); got != want {
						t.Fatalf("%q on hit %d: program %v, tree %v", src, i, got, want)
					}
				}
				return
			}
		}
		var fe *Error
		if !errors.As(err, &fe) || fe.Pos < 0 || fe.Pos > len(src) {
			t.Fatalf("%q: error %v, want an *Error inside the expression", src, err)
		}
	})
}
