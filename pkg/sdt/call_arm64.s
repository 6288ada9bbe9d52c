//go:build linux

#include "textflag.h"

// func call(fn uintptr, regs *[12]uint64)
//
// The arguments go to R0-R11; the frame makes the assembler save LR,
// which the call clobbers.
TEXT ·call(SB), NOSPLIT, $16-16
	MOVD fn+0(FP), R12
	MOVD regs+8(FP), R13
	MOVD 0(R13), R0
	MOVD 8(R13), R1
	MOVD 16(R13), R2
	MOVD 24(R13), R3
	MOVD 32(R13), R4
	MOVD 40(R13), R5
	MOVD 48(R13), R6
	MOVD 56(R13), R7
	MOVD 64(R13), R8
	MOVD 72(R13), R9
	MOVD 80(R13), R10
	MOVD 88(R13), R11
	CALL (R12)
	RET
