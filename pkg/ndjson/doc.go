// Package ndjson writes and reads the NDJSON records of sdtkit's tools:
// the probe events of sdtattach and its in-band lost-event counts, the
// probe sites sdtlist lists, and the semaphores sdtsema prints. Each
// record is one JSON object on one line.
//
// # Events
//
// An event is written by AppendEvent, with its fields in this order:
//
//	{"ts":1718000000123456789,"pid":42,"tid":43,"comm":"demo","cpu":1,
//	 "provider":"demo","name":"tick","args":[7,-1,"0x1f","text",null]}
//
//	ts         time of the hit, in nanoseconds since the Unix epoch
//	pid, tid   the process (thread group) and the thread, as the tracer's
//	           PID namespace numbers them; 0 when that number cannot be
//	           had (sdtattach: see its documentation)
//	comm       the thread's command name
//	cpu        the CPU the probe fired on
//	provider   the probe's provider
//	name       the probe's name, as in its note ("__" is kept)
//	args       the arguments in order (Event.Args)
//	fields     only for a probe whose argument names are known: an
//	           object of the same values by name, in argument order
//	           (Event.Fields)
//	truncated  only when strings were cut: their positions in args,
//	           from 0 (Event.Truncated)
//	ustack     only when the tracer took user stacks: the thread's
//	           stack at the probe, innermost first, an array of frames
//	           (Event.UStack, Frame)
//
// An argument is a JSON number, a JSON string or null (the argument
// could not be read). Integers are exact over the whole int64 and uint64
// ranges: a Value of kind Uint or Int. Other numbers, such as the
// floating-point arguments sdtattach writes (FloatValue), are read as
// kind Number with their text. Strings are string arguments and
// hex-typed ones such as "0x1f" (HexValue); both read as kind String,
// whose Uint64 method parses the hex. Strings are escaped as
// encoding/json escapes them with HTML escaping off: quotes,
// backslashes, control characters, U+2028 and U+2029 escaped, invalid
// UTF-8 replaced by U+FFFD.
//
// The line {"lost":N} (AppendLost) says N events were dropped at that
// point of the stream.
//
// # Sites
//
// A probe site (Site) is written by AppendSite with these fields, in
// this order; the names in parentheses are those of the Site fields:
//
//	file              the file, as named on sdtlist's command line or as
//	                  the process maps it
//	provider, name    the probe's provider and name
//	pc                address of the probe's nop, adjusted for
//	                  .stapsdt.base
//	base              address of .stapsdt.base recorded in the note
//	semaphore         address of the probe's semaphore, 0 when it has none
//	args              the raw argument string of the note
//	pc_offset         file offset of pc: where a uprobe attaches
//	semaphore_offset  file offset of the semaphore, 0 without one
//	insn              the site's instruction in the file (Insn): "nop",
//	                  "nop5", "nop+nop5", "nop+nop10" or "other", as
//	                  package stapsdt names them; absent when it was not
//	                  read (pc_error)
//	note_pc,          pc and semaphore as stored in the note, only when
//	note_semaphore    they differ from the adjusted values (NotePC and
//	                  NoteSemaphore are then equal to PC and Semaphore)
//	pc_error,         only when pc_offset or semaphore_offset is not
//	semaphore_error   usable: why (PCError, SemaphoreError)
//	argv              the parsed arguments (SiteArg), in order
//
// sdtlist -p adds the live state of the site in process pid, when PID is
// not 0:
//
//	pid               the process
//	hook              "loader" on the line of the dynamic loader's
//	                  _dl_debug_state (Hook), which is no probe: its
//	                  provider is empty, its name the function, pc and
//	                  pc_offset its address and offset in the file
//	addr              run-time address of the site, when known
//	armed             whether a tracer has patched the site
//	armed_error       in place of armed: why that could not be read
//	orphaned          of an armed site: true when no uprobe owns its
//	                  breakpoint, false when one does
//	owners            of an armed site that is not orphaned: every
//	                  uprobe that may own it, such as
//	                  ["uprobe_multi link 12 /usr/bin/demo:0x1136"]
//	orphaned_error    in place of orphaned and owners: why the owners
//	                  could not be looked up
//	semaphore_addr    of a probe with a semaphore: its run-time address,
//	                  when known
//	semaphore_value   of a probe with a semaphore: its value
//	semaphore_value_error
//	                  in place of semaphore_value: why it could not be
//	                  read
//
// Each element of argv has raw (the argument as written), size (bytes,
// 0 when not given), signed, and float only when true. An argument that
// cannot be decoded then has error and nothing more; the others have
// kind and location (the operand in canonical form), then by kind:
//
//	const             value
//	register,         reg, reg_offset, and reg_high for the high half of
//	float_register    an 8-byte i386 value in a register pair
//	memory            reg, reg_offset, offset, symbol, reloc
//	sib               reg, reg_offset, index, scale, offset, symbol, reloc
//	symbol            reg, reg_offset, symbol, offset
//
// reg is the full register read or the base register; reg_offset its
// offset in the pt_regs of the file's machine, left out when it has none
// there (RegOffset -1); reg is left out when there is none, symbol of a
// memory or sib operand when its displacement holds no symbol, and reloc
// when that symbol has no relocation operator ("GOTOFF").
//
// # Semaphores
//
// A semaphore (Semaphore) is written by AppendSemaphore with pid, file,
// provider, name, address (run-time address in process pid), offset
// (file offset), sites (the probe sites sharing it), before and after
// (its value before and after sdtsema changed it).
//
// # Reading
//
// A Reader splits its input into lines and tells which record each one
// holds. Events are decoded by a scanner written for their shape: the
// per-event path allocates only for string values, so that a formatter
// keeps up with a million events a second. Sites are decoded by the
// same scanner (ParseSite), semaphores with encoding/json
// (ParseSemaphore): a faster JSON package would cost every tool that
// links this one more at start-up than it saves on these records (about
// 0.3 ms a run of sdtlist). A
// line that is not a record, or is longer than MaxLineSize, yields a
// *LineError; the next call goes on with the next line.
//
// The encoders append to a byte slice and allocate nothing else: a writer
// that reuses its Event and its buffer allocates nothing per event.
// Decoding what they wrote gives back the record, except that Hex and
// Float values come back as the String and Number they were written as,
// and invalid UTF-8 as U+FFFD.
package ndjson
