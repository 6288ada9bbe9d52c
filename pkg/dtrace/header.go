package dtrace

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// MacroName returns the name of the macro of a probe in the header, as
// systemtap's dtrace spells it: PROVIDER_NAME upper-cased, with each "__"
// of the probe name made "_".
func MacroName(provider, name string) string {
	return strings.ToUpper(provider) + "_" + strings.ToUpper(strings.ReplaceAll(name, "__", "_"))
}

// SemaphoreName returns the symbol of a probe's semaphore, as sys/sdt.h
// names it: PROVIDER_NAME_semaphore, with the names as written.
func SemaphoreName(provider, name string) string {
	return provider + "_" + name + "_semaphore"
}

// checkMacroNames reports two probes whose macros would have the same
// name, such as a__b and a_b.
func checkMacroNames(providers []Provider) error {
	seen := make(map[string]string)
	for _, pv := range providers {
		for _, pr := range pv.Probes {
			m := MacroName(pv.Name, pr.Name)
			this := pv.Name + ":" + pr.Name
			if prev, ok := seen[m]; ok {
				return fmt.Errorf("probes %s and %s both make the macro %s", prev, this, m)
			}
			seen[m] = this
		}
	}
	return nil
}

// headerCommon is the part of the header that does not depend on the
// probes. It computes each argument's size and sign from the C expression
// passed, exactly as sys/sdt.h's _SDT_ARGSIZE and _SDT_ARGSIGNED do, so
// that the notes match those of a program built with <sys/sdt.h>; the
// assembler directives that write the note are sys/sdt.h's too, but the
// size and sign are printed as one constant operand (%c) instead of
// through .altmacro macros.
const headerCommon = `#ifndef _SDTGEN_COMMON
#define _SDTGEN_COMMON 1

#define _SDTGEN_ARGARRAY(x) (__builtin_classify_type (x) == 14 \
			     || __builtin_classify_type (x) == 5)
#define _SDTGEN_ARGSIZE(x) (_SDTGEN_ARGARRAY (x) ? sizeof (void *) : sizeof (x))

#ifdef __cplusplus
#define _SDTGEN_ARGSIGNED(x) (!_SDTGEN_ARGARRAY (x) \
			      && __sdtgen_type<__typeof (x)>::__sdtgen_signed)
template<typename __sdtgen_T>
struct __sdtgen_type { static const bool __sdtgen_signed = false; };
#define _SDTGEN_SIGNED(T) \
template<> struct __sdtgen_type<T> { static const bool __sdtgen_signed = true; };
#define _SDTGEN_COND_SIGNED(T, CT) \
template<> struct __sdtgen_type<T> { static const bool __sdtgen_signed = ((CT) (-1) < 1); };
#define _SDTGEN_SIGNED_CV(T) _SDTGEN_SIGNED (T) _SDTGEN_SIGNED (const T) \
	_SDTGEN_SIGNED (volatile T) _SDTGEN_SIGNED (const volatile T)
#define _SDTGEN_COND_SIGNED_CV(T) _SDTGEN_COND_SIGNED (T, T) \
	_SDTGEN_COND_SIGNED (const T, T) _SDTGEN_COND_SIGNED (volatile T, T) \
	_SDTGEN_COND_SIGNED (const volatile T, T)
_SDTGEN_SIGNED_CV (signed char)
_SDTGEN_SIGNED_CV (short)
_SDTGEN_SIGNED_CV (int)
_SDTGEN_SIGNED_CV (long)
_SDTGEN_SIGNED_CV (long long)
_SDTGEN_COND_SIGNED_CV (char)
_SDTGEN_COND_SIGNED_CV (wchar_t)
template<typename __sdtgen_E>
struct __sdtgen_type<__sdtgen_E[]> : public __sdtgen_type<__sdtgen_E *> {};
template<typename __sdtgen_E, __SIZE_TYPE__ __sdtgen_N>
struct __sdtgen_type<__sdtgen_E[__sdtgen_N]> : public __sdtgen_type<__sdtgen_E *> {};
#else
__extension__ extern unsigned long long __sdtgen_unsp;
#define _SDTGEN_ARGINTTYPE(x) \
  __typeof (__builtin_choose_expr (((__builtin_classify_type (x) + 3) & -4) == 4, \
				   (x), 0U))
#define _SDTGEN_ARGSIGNED(x) \
  (!__extension__ \
   (__builtin_constant_p ((((unsigned long long) \
			    (_SDTGEN_ARGINTTYPE (x)) __sdtgen_unsp) \
			   & ((unsigned long long) 1 << (sizeof (unsigned long long) \
							 * __CHAR_BIT__ - 1))) == 0) \
    || (_SDTGEN_ARGINTTYPE (x)) -1 > (_SDTGEN_ARGINTTYPE (x)) 0))
#endif

#if defined __powerpc__
#define _SDTGEN_CONSTRAINT "nZr"
#define _SDTGEN_ARGTMPL(id) "%I[" id "]%[" id "]"
#elif defined __i386__
#define _SDTGEN_CONSTRAINT "nor"
#define _SDTGEN_ARGTMPL(id) "%k[" id "]"
#elif defined __arm__
#define _SDTGEN_CONSTRAINT "g"
#define _SDTGEN_ARGTMPL(id) "%[" id "]"
#else
#define _SDTGEN_CONSTRAINT "nor"
#define _SDTGEN_ARGTMPL(id) "%[" id "]"
#endif

#ifdef __LP64__
#define _SDTGEN_ADDR ".8byte "
#else
#define _SDTGEN_ADDR ".4byte "
#endif

#if defined __s390__ || defined __s390x__
#define _SDTGEN_NOP "nop 0"
#else
#define _SDTGEN_NOP "nop"
#endif

/* The operands of argument n: its size, negative when it is signed; its
   type class (8 for floating point); its value. */
#define _SDTGEN_ARG(n, x) \
  [_SDTGEN_S##n] "n" ((_SDTGEN_ARGSIGNED (x) ? -1 : 1) * (int) _SDTGEN_ARGSIZE (x)), \
  [_SDTGEN_T##n] "n" (__builtin_classify_type (x)), \
  [_SDTGEN_A##n] _SDTGEN_CONSTRAINT (x)

/* Argument n in the argument string: -4@%edi, 8f@%xmm0. */
#define _SDTGEN_ARGFMT(n) \
  ".ascii \"%c[_SDTGEN_S" #n "]\"\n" \
  ".if %c[_SDTGEN_T" #n "] == 8\n" \
  ".ascii \"f\"\n" \
  ".endif\n" \
  ".ascii \"@\"\n" \
  ".ascii \"" _SDTGEN_ARGTMPL ("_SDTGEN_A" #n) "\"\n"

/* The nop, and the note up to the semaphore. */
#define _SDTGEN_NOTE_BEGIN \
  "990: " _SDTGEN_NOP "\n" \
  ".pushsection .note.stapsdt,\"?\",\"note\"\n" \
  ".balign 4\n" \
  ".4byte 992f-991f, 994f-993f, 3\n" \
  "991: .asciz \"stapsdt\"\n" \
  "992: .balign 4\n" \
  "993: " _SDTGEN_ADDR "990b\n" \
  _SDTGEN_ADDR "_.stapsdt.base\n"

#define _SDTGEN_NOTE_END \
  "994: .balign 4\n" \
  ".popsection\n"

/* .stapsdt.base, whose address the notes record so that tools can tell
   how far a prelinked file moved. */
#define _SDTGEN_BASE \
  ".ifndef _.stapsdt.base\n" \
  ".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
  ".weak _.stapsdt.base\n" \
  ".hidden _.stapsdt.base\n" \
  "_.stapsdt.base: .space 1\n" \
  ".size _.stapsdt.base, 1\n" \
  ".popsection\n" \
  ".endif\n"

#endif /* _SDTGEN_COMMON */
`

// WriteHeader writes the C header of the probes of providers, as
// systemtap's dtrace -h writes it but with no need of <sys/sdt.h>: for
// each probe a macro PROVIDER_NAME(args...) that places it, with the nop
// and the note sys/sdt.h would write, and PROVIDER_NAME_ENABLED() that
// reads its semaphore, which the object of elfwriter.SemaphoreObject
// defines. spec is the provider file's name, for the opening comment. Two
// probes whose macros would have the same name are an error.
func WriteHeader(w io.Writer, spec string, providers []Provider) error {
	if err := checkMacroNames(providers); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "/* Code generated by sdtgen -h from %s. DO NOT EDIT. */\n\n", spec)
	fmt.Fprint(bw, "/* USDT probes, as with systemtap's dtrace -h but with no need of\n   <sys/sdt.h>. Each probe has a semaphore: link with sdtgen -G. */\n\n")
	bw.WriteString(headerCommon)
	for _, pv := range providers {
		for _, pr := range pv.Probes {
			writeProbeMacros(bw, pv.Name, &pr)
		}
	}
	return bw.Flush()
}

func writeProbeMacros(w *bufio.Writer, provider string, pr *Probe) {
	m := MacroName(provider, pr.Name)
	sema := SemaphoreName(provider, pr.Name)
	var decl, params, operands []string
	for i, a := range pr.Args {
		decl = append(decl, a.Type+" "+a.Name)
		params = append(params, fmt.Sprintf("arg%d", i+1))
		operands = append(operands, fmt.Sprintf("_SDTGEN_ARG (%d, arg%d)", i+1, i+1))
	}
	fmt.Fprintf(w, "\n/* %s:%s (%s) */\n", provider, pr.Name, strings.Join(decl, ", "))
	fmt.Fprintf(w, "__extension__ extern unsigned short %s __attribute__ ((unused)) __attribute__ ((section (\".probes\"))) __attribute__ ((visibility (\"hidden\")));\n", sema)
	fmt.Fprintf(w, "#define %s_ENABLED() __builtin_expect (%s, 0)\n", m, sema)
	fmt.Fprintf(w, "#define %s(%s) \\\n", m, strings.Join(params, ", "))
	line := func(format string, a ...any) { fmt.Fprintf(w, "  "+format+" \\\n", a...) }
	line("do {")
	line("  __asm__ __volatile__ (\"\" :: \"m\" (%s));", sema)
	line("  __asm__ __volatile__ (_SDTGEN_NOTE_BEGIN")
	line("    _SDTGEN_ADDR \"%s\\n\"", sema)
	line("    \".asciz \\\"%s\\\"\\n\"", provider)
	line("    \".asciz \\\"%s\\\"\\n\"", pr.Name)
	for i := range pr.Args {
		if i > 0 {
			line("    \".ascii \\\" \\\"\\n\"")
		}
		line("    _SDTGEN_ARGFMT (%d)", i+1)
	}
	line("    \".byte 0\\n\"")
	line("    _SDTGEN_NOTE_END")
	line("    :: %s);", strings.Join(operands, ", "))
	line("  __asm__ __volatile__ (_SDTGEN_BASE);")
	fmt.Fprint(w, "  } while (0)\n")
}
