// Package tracefs writes USDT probe sites as the kernel's uprobe_events
// definitions, the oldest way to trace them on Linux: no BPF, only ftrace.
//
// Define turns one probe site of an ELF file into a Definition: a probe
// event at the site's file offset, its semaphore as the reference counter
// the kernel raises while the event is enabled, and one fetch argument
// per probe argument, read as the note's operand says with the type its
// size and sign give:
//
//	p:sdt_demo/tick /usr/bin/demo:0x1139(0x4010) arg0=%di:s64 arg1=-4(%bp):s32
//
// Operands translate as follows on x86-64 (other machines are not yet
// supported: Define returns ErrMachine):
//
//	$5             \5                   an immediate
//	%rdi, %eax     %di, %ax             a register; its size is the type's
//	%ah            %ax:b8@8/64          a high byte, as a bitfield
//	-4(%rbp)       -4(%bp)              memory at a register plus a displacement
//	sym(%rip)      +D(%ip)              a global: D is its distance from the site
//	16(%rip)       +17(%ip)             past the site's 1-byte nop
//
// Operands with no fetch argument form are left out of the definition, and
// only they: memory indexed by a register (SIB), floating-point values,
// a symbol added to a register in a position-independent file (the load
// bias is no register), a signed high byte. Definition.LeftOut says which
// and why.
//
// Event names are what the kernel accepts: letters, digits and '_',
// starting with a letter or '_', at most MaxName bytes. A Namer makes them
// unique within their group: a probe with several sites gets NAME, then
// NAME_1, NAME_2, in note order, as perf names them.
package tracefs
