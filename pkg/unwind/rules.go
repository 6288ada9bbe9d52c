package unwind

import (
	"fmt"
)

// MaxReg is the highest DWARF register number a Row keeps rules of:
// x86-64's return address column (16) and arm64's registers, x0 to x30
// and sp (31), are below it. Rules of higher registers are read and
// left out.
const MaxReg = 32

// A RuleKind says how a register of the caller is recovered.
type RuleKind uint8

const (
	// Unspecified: no rule, the register keeps its value (DWARF's
	// default for callee-saved registers).
	Unspecified   RuleKind = iota
	Undefined              // not recoverable; for the return address, the outermost frame
	SameValue              // the value it has in this frame
	Offset                 // saved at CFA+Off
	ValOffset              // its value is CFA+Off
	Register               // saved in register Reg
	Expression             // saved at the address Expr computes, with the CFA pushed first
	ValExpression          // its value is what Expr computes, with the CFA pushed first
	CFARegOffset           // the CFA only: register Reg plus Off
	CFAExpression          // the CFA only: what Expr computes
)

var ruleNames = [...]string{"unspecified", "undefined", "same", "offset", "val_offset", "register", "expression", "val_expression", "reg+off", "expression"}

func (k RuleKind) String() string {
	if int(k) < len(ruleNames) {
		return ruleNames[k]
	}
	return fmt.Sprintf("RuleKind(%d)", k)
}

// A Rule recovers one register, or the CFA (the canonical frame address:
// the stack pointer before the call that made the frame).
type Rule struct {
	Kind RuleKind
	Reg  uint64
	Off  int64
	Expr []byte
}

// A Row holds the rules in effect at one address.
type Row struct {
	CFA    Rule
	Regs   [MaxReg + 1]Rule
	RA     uint64 // the return address column
	Signal bool   // the frame of a signal handler's trampoline
}

// DWARF call frame instructions (DWARF 5, 6.4.2), with the GNU ones gcc emits.
const (
	cfaAdvanceLoc        = 0x40 // high 2 bits; delta in the low 6
	cfaOffset            = 0x80 // register in the low 6
	cfaRestore           = 0xc0 // register in the low 6
	cfaNop               = 0x00
	cfaSetLoc            = 0x01
	cfaAdvanceLoc1       = 0x02
	cfaAdvanceLoc2       = 0x03
	cfaAdvanceLoc4       = 0x04
	cfaOffsetExtended    = 0x05
	cfaRestoreExtended   = 0x06
	cfaUndefined         = 0x07
	cfaSameValue         = 0x08
	cfaRegister          = 0x09
	cfaRememberState     = 0x0a
	cfaRestoreState      = 0x0b
	cfaDefCFA            = 0x0c
	cfaDefCFARegister    = 0x0d
	cfaDefCFAOffset      = 0x0e
	cfaDefCFAExpression  = 0x0f
	cfaExpression        = 0x10
	cfaOffsetExtendedSF  = 0x11
	cfaDefCFASF          = 0x12
	cfaDefCFAOffsetSF    = 0x13
	cfaValOffset         = 0x14
	cfaValOffsetSF       = 0x15
	cfaValExpression     = 0x16
	cfaGNUWindowSave     = 0x2d // arm64: DW_CFA_AARCH64_negate_ra_state
	cfaGNUArgsSize       = 0x2e
	cfaGNUNegOffsetExtnd = 0x2f
)

// maxStates bounds DW_CFA_remember_state nesting.
const maxStates = 64

// row runs the CIE's initial instructions, then the FDE's up to pc.
func (f *fde) row(pc uint64) (*Row, error) {
	c := f.cie
	row := &Row{RA: c.raReg, Signal: c.signal}
	m := machine{row: row, cie: c, loc: f.start}
	if err := m.run(c.initial, ^uint64(0)); err != nil {
		return nil, fmt.Errorf("CIE instructions: %w", err)
	}
	m.initial = row.Regs
	if err := m.run(f.insns, pc); err != nil {
		return nil, err
	}
	return row, nil
}

type machine struct {
	row     *Row
	cie     *cie
	loc     uint64
	initial [MaxReg + 1]Rule // after the CIE's instructions, for DW_CFA_restore
	stack   []Row
}

// run executes instructions until the location passes pc.
func (m *machine) run(insns []byte, pc uint64) error {
	r := reader{b: insns, order: m.cie.order}
	c := m.cie
	set := func(reg uint64, rule Rule) {
		if reg <= MaxReg {
			m.row.Regs[reg] = rule
		}
	}
	for r.off < len(r.b) && r.err == nil {
		op := r.u8()
		switch op & 0xc0 {
		case cfaAdvanceLoc:
			m.loc += uint64(op&0x3f) * c.codeAlign
			if m.loc > pc {
				return nil
			}
			continue
		case cfaOffset:
			set(uint64(op&0x3f), Rule{Kind: Offset, Off: int64(r.uleb()) * c.dataAlign})
			continue
		case cfaRestore:
			if reg := op & 0x3f; reg <= MaxReg {
				m.row.Regs[reg] = m.initial[reg]
			}
			continue
		}
		var delta uint64
		switch op {
		case cfaNop:
		case cfaSetLoc:
			if c.eh {
				return fmt.Errorf("DW_CFA_set_loc in .eh_frame not supported")
			}
			m.loc = r.u64()
			if m.loc > pc {
				return r.err
			}
		case cfaAdvanceLoc1:
			delta = uint64(r.u8())
		case cfaAdvanceLoc2:
			delta = uint64(r.u16())
		case cfaAdvanceLoc4:
			delta = uint64(r.u32())
		case cfaOffsetExtended:
			reg := r.uleb()
			set(reg, Rule{Kind: Offset, Off: int64(r.uleb()) * c.dataAlign})
		case cfaRestoreExtended:
			if reg := r.uleb(); reg <= MaxReg {
				m.row.Regs[reg] = m.initial[reg]
			}
		case cfaUndefined:
			set(r.uleb(), Rule{Kind: Undefined})
		case cfaSameValue:
			set(r.uleb(), Rule{Kind: SameValue})
		case cfaRegister:
			reg := r.uleb()
			set(reg, Rule{Kind: Register, Reg: r.uleb()})
		case cfaRememberState:
			if len(m.stack) >= maxStates {
				return fmt.Errorf("DW_CFA_remember_state nested more than %d deep", maxStates)
			}
			m.stack = append(m.stack, *m.row)
		case cfaRestoreState:
			if len(m.stack) == 0 {
				return fmt.Errorf("DW_CFA_restore_state with no state remembered")
			}
			// The CFA is restored too (DWARF 5 says so; gcc relies on it).
			*m.row = m.stack[len(m.stack)-1]
			m.stack = m.stack[:len(m.stack)-1]
		case cfaDefCFA:
			reg := r.uleb()
			m.row.CFA = Rule{Kind: CFARegOffset, Reg: reg, Off: int64(r.uleb())}
		case cfaDefCFASF:
			reg := r.uleb()
			m.row.CFA = Rule{Kind: CFARegOffset, Reg: reg, Off: r.sleb() * c.dataAlign}
		case cfaDefCFARegister:
			m.row.CFA.Kind, m.row.CFA.Reg, m.row.CFA.Expr = CFARegOffset, r.uleb(), nil
		case cfaDefCFAOffset:
			m.row.CFA.Off = int64(r.uleb())
		case cfaDefCFAOffsetSF:
			m.row.CFA.Off = r.sleb() * c.dataAlign
		case cfaDefCFAExpression:
			m.row.CFA = Rule{Kind: CFAExpression, Expr: r.bytes(r.uleb())}
		case cfaExpression:
			reg := r.uleb()
			set(reg, Rule{Kind: Expression, Expr: r.bytes(r.uleb())})
		case cfaValExpression:
			reg := r.uleb()
			set(reg, Rule{Kind: ValExpression, Expr: r.bytes(r.uleb())})
		case cfaOffsetExtendedSF:
			reg := r.uleb()
			set(reg, Rule{Kind: Offset, Off: r.sleb() * c.dataAlign})
		case cfaValOffset:
			reg := r.uleb()
			set(reg, Rule{Kind: ValOffset, Off: int64(r.uleb()) * c.dataAlign})
		case cfaValOffsetSF:
			reg := r.uleb()
			set(reg, Rule{Kind: ValOffset, Off: r.sleb() * c.dataAlign})
		case cfaGNUWindowSave:
			// arm64: the return address is signed from here on (or no
			// longer); Unwind strips it of its signature either way.
		case cfaGNUArgsSize:
			r.uleb()
		case cfaGNUNegOffsetExtnd:
			reg := r.uleb()
			set(reg, Rule{Kind: Offset, Off: -int64(r.uleb()) * c.dataAlign})
		default:
			return fmt.Errorf("call frame instruction %#x not supported", op)
		}
		if delta != 0 {
			m.loc += delta * c.codeAlign
			if m.loc > pc {
				return r.err
			}
		}
	}
	return r.err
}
