#include "textflag.h"

// func pairChunk(s []byte, a, b byte, d int) int
//
// The offset of the first 16-byte chunk of s (offsets 0, 16, 32, ...) that
// holds a position i with s[i] == a and s[i+d] == b (d >= 1), looking only
// at chunks whose 16+d bytes lie inside s; -1 when none does. SSE2 (every
// amd64 CPU), 64 bytes per round while they last.
TEXT ·pairChunk(SB), NOSPLIT, $0-48
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	MOVBQZX a+24(FP), AX
	MOVBQZX b+25(FP), BX
	MOVQ d+32(FP), R9
	LEAQ (SI)(R9*1), R8
	MOVQ AX, X0
	PUNPCKLBW X0, X0
	PUNPCKLWL X0, X0
	PSHUFL $0, X0, X0
	MOVQ BX, X1
	PUNPCKLBW X1, X1
	PUNPCKLWL X1, X1
	PSHUFL $0, X1, X1
	XORQ DI, DI

big:
	LEAQ 64(DI)(R9*1), DX
	CMPQ DX, CX
	JA   loop
	MOVOU (SI)(DI*1), X2
	MOVOU (R8)(DI*1), X3
	MOVOU 16(SI)(DI*1), X4
	MOVOU 16(R8)(DI*1), X5
	MOVOU 32(SI)(DI*1), X6
	MOVOU 32(R8)(DI*1), X7
	MOVOU 48(SI)(DI*1), X8
	MOVOU 48(R8)(DI*1), X9
	PCMPEQB X0, X2
	PCMPEQB X1, X3
	PCMPEQB X0, X4
	PCMPEQB X1, X5
	PCMPEQB X0, X6
	PCMPEQB X1, X7
	PCMPEQB X0, X8
	PCMPEQB X1, X9
	PAND X3, X2
	PAND X5, X4
	PAND X7, X6
	PAND X9, X8
	POR  X4, X2
	POR  X8, X6
	POR  X6, X2
	PMOVMSKB X2, DX
	TESTL DX, DX
	JNZ  loop // a candidate in these 64 bytes: find its chunk below
	ADDQ $64, DI
	JMP  big

loop:
	LEAQ 16(DI)(R9*1), DX
	CMPQ DX, CX
	JA   none
	MOVOU (SI)(DI*1), X2
	MOVOU (R8)(DI*1), X3
	PCMPEQB X0, X2
	PCMPEQB X1, X3
	PAND X3, X2
	PMOVMSKB X2, DX
	TESTL DX, DX
	JNZ  found
	ADDQ $16, DI
	JMP  loop

found:
	MOVQ DI, ret+40(FP)
	RET

none:
	MOVQ $-1, ret+40(FP)
	RET
