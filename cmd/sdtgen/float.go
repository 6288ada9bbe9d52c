package main

import (
	"encoding/binary"
	"math"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// floatScratch is the SSE register floating-point values are computed in
// on their way to a general-purpose register or memory; the float form
// uses %xmm0 to %xmm11.
const floatScratch = elfwriter.XMM15

// loadFloat emits the loading of floating-point argument i's value on the
// current iteration into x, through r: the integer -(2*(k*1000+i)+1),
// converted, times 0.5, so that every step is exact.
func (g *generator) loadFloat(x elfwriter.AMD64XReg, r elfwriter.AMD64Reg, a argType, i int) {
	g.a.LoadRIP(r, g.k1000, 0)
	if i != 0 {
		g.a.AddImm(r, int32(i))
	}
	g.a.Add(r, r)
	g.a.AddImm(r, 1)
	g.a.Neg(r)
	if a.size == 4 {
		g.a.Cvtsi2ss(r, x)
		g.a.MulssRIP(g.half(4), 0, x)
		return
	}
	g.a.Cvtsi2sd(r, x)
	g.a.MulsdRIP(g.half(8), 0, x)
}

// loadFloatBits emits the loading of the bits of floating-point argument
// i's value into r, as gcc leaves a float or double in a general-purpose
// register for an "r" constraint: a float in the low 4 bytes, zero-extended.
func (g *generator) loadFloatBits(r elfwriter.AMD64Reg, a argType, i int) {
	g.loadFloat(floatScratch, r, a, i)
	if a.size == 4 {
		g.a.MovdFromX(floatScratch, r)
		return
	}
	g.a.MovqFromX(floatScratch, r)
}

// half returns the label of the constant 0.5 as a float (size 4) or a
// double (size 8), placed in .data the first time it is asked for.
func (g *generator) half(size int) elfwriter.Label {
	l := &g.half64
	if size == 4 {
		l = &g.half32
	}
	if *l == 0 {
		var b []byte
		if size == 4 {
			b = binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.5))
		} else {
			b = binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.5))
		}
		*l = g.f.Data("", b, size)
	}
	return *l
}
