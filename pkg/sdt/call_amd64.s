//go:build linux

#include "textflag.h"

// func call(fn uintptr, regs *[12]uint64)
//
// An ABI0 function may clobber every register but SP and BP. The
// arguments go to DI, SI, DX, CX, R8, R9, R10, R11, BX, R12, R13 and AX,
// AX last as it holds regs until then, and the function is called
// through its address, kept in the frame.
//
// The frame holds 32 bytes more than it uses, so that the linker's count
// of what this NOSPLIT function may take of the stack includes what the
// kernel pushes below the probe function's stack pointer when it has
// turned a uprobe on its 5-byte nop into a call to its trampoline: the
// return address, then %rcx, %r11 and %rax (Linux 6.18).
TEXT ·call(SB), NOSPLIT, $40-16
	MOVQ fn+0(FP), AX
	MOVQ AX, 0(SP)
	MOVQ regs+8(FP), AX
	MOVQ 0(AX), DI
	MOVQ 8(AX), SI
	MOVQ 16(AX), DX
	MOVQ 24(AX), CX
	MOVQ 32(AX), R8
	MOVQ 40(AX), R9
	MOVQ 48(AX), R10
	MOVQ 56(AX), R11
	MOVQ 64(AX), BX
	MOVQ 72(AX), R12
	MOVQ 80(AX), R13
	MOVQ 88(AX), AX
	CALL 0(SP)
	RET
