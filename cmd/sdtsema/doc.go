/*
Sdtsema prints, increments and decrements the semaphores of USDT probes in
running processes, one JSON object per semaphore per line (NDJSON).

An is-enabled probe (DTrace's PROVIDER_PROBE_ENABLED() from dtrace -h,
sys/sdt.h with _SDT_HAS_SEMAPHORES, folly's FOLLY_SDT_IS_ENABLED) fires
only while its semaphore, a 16-bit counter in the program's .probes
section, is not zero. Tracers that attach without the kernel's reference
counter (ftrace uprobe_events without ref_ctr_offset, gdb, perf probe on
older kernels) use sdtsema to enable such probes.

Usage:

	sdtsema -p PID [--inc | --dec | --hold [--for DURATION]] PROBE...
	sdtsema --all [--inc | --dec | --hold [--for DURATION]] PATH:PROVIDER:NAME...

PROBE is [usdt:]PATH:PROVIDER:NAME or PROVIDER:NAME, as for sdtattach:
PROVIDER and NAME are globs (as in path.Match), and a PATH without '/' is
looked up as a command in $PATH or as a library where the dynamic loader
looks. Without PATH, every object the process maps is searched.

The flags are:

	-p PID
		Act on process PID: its executable and every shared library
		it maps, PIE or not, including libraries loaded with dlopen.
		Files are opened through /proc/PID/root, so processes in
		containers work.
	--all
		Act on every running process that maps the file named by the
		PATH of each PROBE (same device and inode). Processes that exit
		during the scan are skipped. Processes sdtsema may not inspect
		(those of other users, unless it runs as root or with
		CAP_SYS_PTRACE) are counted and reported on standard error;
		when none it could inspect maps PATH, it says so, with that
		count, and fails.
	--inc
		Increment each semaphore by one.
	--dec
		Decrement each semaphore by one.
	--hold
		Increment each semaphore, wait for SIGINT, SIGTERM or SIGHUP,
		then decrement the semaphores it incremented. It also
		decrements them when it fails after incrementing some, and
		says on standard error what it restored. When a process
		exits, there is nothing left to restore in it; sdtsema says
		so and stops once no process is left. SIGKILL leaves no way
		to decrement: each increment held is recorded in
		/run/sdtkit/holds/PID.json while it is held, so that
		sdtrepair -p PID can prove the holder gone and undo it (if
		the record cannot be written, sdtsema says so and holds
		anyway).
	--for DURATION
		With --hold, decrement after DURATION (such as 30s or 500ms)
		unless a signal comes first.
	-h
		Print the usage and exit.

Without --inc, --dec or --hold, sdtsema prints the semaphores and changes
nothing.

Several sites of one probe share one semaphore: each distinct semaphore is
printed, and changed, once. Each output line describes one semaphore of
one probe in one file of one process, with these fields:

	pid        the process
	file       the file holding the probe, as the process maps it
	provider,  the probe's provider and name
	name
	address    runtime address of the semaphore in the process: its
	           file offset translated through the mapping of the file
	           that holds it (the load bias)
	offset     file offset of the semaphore, a uprobe's ref_ctr_offset
	sites      the number of probe sites that share the semaphore; a
	           tracer attaching all of them through the kernel raises
	           it by that many, one per site
	before     the value of the semaphore when sdtsema read it
	after      its value after sdtsema wrote it; equal to before when
	           printing

Numbers are JSON numbers in decimal.

Before writing, sdtsema checks, against /proc/PID/maps as it is at that
moment, that the semaphore is 2-byte aligned and lies in a private writable
mapping of its own file (device and inode) at its file offset, which is
where the kernel itself keeps a uprobe's reference counter. It then reads
the two bytes, in the byte order of the file, through /proc/PID/mem, and
writes the new value right away. A value that would go below 0 or past
65535 is not written. The write is not atomic: were the kernel to change
the semaphore between the read and the write, because a uprobe with a
reference counter is attached or detached at that very moment, that change
would be lost. sdtsema reads the value back and reports on standard error
when it is not the one written.

When a probe has no semaphore, matches nothing, or its semaphore fails the
checks or cannot take the change (it is at 65535 for --inc, at 0 for
--dec), sdtsema says so and writes nothing to that process: it checks
every semaphore of a process before it writes any. Should a write still
fail part way, because the process exits or a semaphore changed in the
meantime so that it no longer takes the change, sdtsema changes back the
semaphores it wrote in that process, says so on standard error, and
prints nothing for them. With -p and no action it prints the semaphores
it could read. Errors are reported on
standard error and give exit status 1: no such process, a zombie (a
process that has exited and whose parent has not reaped it), no permission
(reading maps needs the same user or CAP_SYS_PTRACE; writing memory also
a Yama ptrace_scope that allows attaching, /proc/sys/kernel/yama/ptrace_scope),
a process that exits mid-way. Usage errors exit with status 2.
*/
package main
