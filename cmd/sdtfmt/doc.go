/*
Sdtfmt formats the NDJSON events of sdtattach for people: one aligned
line per event, or counts, log2 histograms and latencies per probe. It
also shows the probe sites sdtlist lists as sdtlist -t does. A Go program
gets the same view from package eventtext and the same summaries, with
bpftrace's histogram buckets, from package aggregate.

Usage:

	sdtfmt [-f 'PROBE=FORMAT']... [--time abs|rel|none] [FILE...]
	sdtfmt -c [--by KEY] [--interval D] [FILE...]
	sdtfmt --hist KEY [--by KEY] [--interval D] [FILE...]
	sdtfmt --latency START,END[,KEY] [--interval D] [FILE...]
	sdtfmt [--folded] [--pprof FILE] [FILE...]

Sdtfmt reads standard input when no FILE is given, and when FILE is "-".
A typical use is

	sdtattach -p PID 'app:request__*' | sdtfmt
	sdtlist -p PID | sdtfmt

The flags are:

	-f 'PROBE=FORMAT'
		Write the arguments of the probes PROBE matches as FORMAT says
		(see Templates). PROBE is PROVIDER:NAME or NAME alone, each a
		glob as in path.Match, as sdtlist takes patterns
		(probespec.ParsePattern). May be repeated; the first match wins.
	-c, --count
		Count the events per probe, and per --by key.
	--hist KEY
		Draw a log2 histogram of KEY per probe, and per --by key.
	--latency START,END[,KEY]
		Pair each START event with the next END event of the same KEY
		(default tid) and show the latencies. START and END are probe
		patterns as for -f.
	--folded
		Count the events by their stack (sdtattach --ustack), and the
		records of sdtattach --by ustack by theirs, as many as each
		counted (hits, values, or pairs of a latency), and write one
		line per stack: its frames root first, joined by ";", a
		space and the count, as flamegraph.pl, inferno and speedscope
		read them. A frame is its symbol, or FILE+0xOFFSET where none
		is known, or its address (package stacks).
	--pprof FILE
		Count the events by their stack and write them to FILE as a
		gzipped pprof profile (functions, locations, and mappings with
		their build-ids), which go tool pprof -http draws as a flame
		graph. With --folded, both are written. Events and records
		without a stack are left out, and said so on the standard error.
	--by KEY
		Group counts or histograms by KEY too; alone, it implies -c.
	--time abs|rel|none
		The TIME column: seconds since the first event (rel, the
		default), local time of day (abs), or no column (none).
	--interval D
		With -c, --hist or --latency: write the summary every D (such
		as 1s or 500ms), headed by the time as [15:04:05], and start
		the next one; what is left is written at the end of the input.
	-h
		Print the usage and exit.

A KEY is pid, tid, comm, ustack, argN (the N-th argument, from 0) or the name of
a field sdtattach --types writes.

# Input

Each line is one JSON object. An event is

	{"ts":NS,"pid":P,"tid":T,"comm":"C","cpu":N,"provider":"PR","name":"NM",
	 "args":[...],"fields":{...}}

where ts is Unix nanoseconds and each argument is an integer (exact over
the int64 and uint64 ranges), a string (a string argument, or a hex one
such as "0x1f") or null (unreadable). {"lost":N} says N events were lost.
An event of sdtattach --ustack has its stack in "ustack", which the
per-event view shows under the event's line, one frame a line, as bcc's
trace -U does: SYMBOL+0xOFF [FILE].
A line with the fields file, pc or argv is a probe site from sdtlist. A
blank line is skipped.

# Per-event view

Without -c, --hist or --latency, sdtfmt writes a header and one line per
event with these columns, as bcc's trace does:

	TIME   seconds since the first event with microseconds (rel), or
	       local time HH:MM:SS.UUUUUU (abs); absent with --time none
	PID    process ID
	TID    thread ID
	COMM   thread name
	PROBE  PROVIDER:NAME
	ARGS   the arguments separated by spaces, or with --types the
	       fields as NAME=VALUE, or the -f template's text

Integers are written in decimal, strings as they are unless they are
empty or hold blanks, quotes, backslashes, control bytes, invalid UTF-8 or
other unprintable characters such as U+2028 (then quoted as in Go, with
those as escapes: "\x1b[2J"), objects and arrays as written unless they
hold unprintable characters (then quoted the same way), null as "?".
COMM, the provider and the name in PROBE, field names and, in the other
views, key values are written the same way, since a process chooses its
own thread name and a file its probes' names. Every column but ARGS has a
minimum width in characters (TIME 10, or 15 for abs; PID and TID 7; COMM
15; PROBE 24) and grows to fit a longer value: lines are written as
events arrive, never held back to align them, and the header is written
again, with the new widths, above the line that widened a column, so
that every line is aligned with the header above it. A lost-event record is written in place
as

	WARNING: lost N events

Output is flushed after every line when standard output is a terminal,
and otherwise whenever no more input is waiting.

# Templates

A -f FORMAT is text with conversions; each but %{name} takes the next
argument:

	%d     the integer as written (a hex string in decimal)
	%u     the integer as C's unsigned 64-bit: negative values in two's
	       complement
	%x     the same in hexadecimal, without 0x
	%s     a string as it is, blanks and quotes included, unless it
	       holds characters that are not printable (then as %q); any
	       other value as in ARGS
	%q     the value quoted as a Go string
	%{name}  the --types field name, as in ARGS
	%%     a percent sign

A flag - (align left) or 0 (pad numbers with zeros) and a width may come
between % and the verb, as in %-8s or %016x. An argument of the wrong
kind is written as %!d("text"), one that is missing as %!d(MISSING) or
%!{name}(MISSING); null is "?" for every verb.

# Counts

-c writes one line per probe (and --by key value), largest count first,
under a header:

	PROBE  the probe, PROVIDER:NAME
	KEY    the --by key's value, headed by the key in capitals (PID,
	       ARG0); absent without --by
	COUNT  the number of events

# Histograms

--hist writes, per probe and --by key value in order of probe and key, a
title "PROVIDER:NAME KEY" (with ", BYKEY VALUE" when --by is given) and
the buckets from the first to the last that is not empty, as bpftrace's
hist does:

	(..., 0)               1 |@@@@                                                |
	[0]                    0 |                                                    |
	[1]                    3 |@@@@@@@@@@@@                                        |
	[2, 4)                13 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
	[1K, 2K)               2 |@@@@@@@@                                            |

Negative values share the first bucket and 0 and 1 have their own; then
each bucket is [2**k, 2**(k+1)), written with K, M, G, T, P and E for
powers of 1024. The bar of the fullest bucket is 52 wide. Events whose
KEY is missing, null or no number are left out and counted on standard
error.

# Aggregate records

The records of sdtattach --count, --hist, --stats and --latency (see package
pkg/aggregate), which count in the kernel, are rendered whatever the
flags: the records of one interval (one ts) as one summary, counts as
-c writes them, histograms as --hist does, with a column or a title
part per --by key, and stats as a table of PROBE, the --by keys, COUNT,
SUM, MIN, MAX and MEAN under the title "stats of KEY", and latencies as
--latency writes them, one per END probe and --by key, titled "FROM ->
PROVIDER:NAME[, KEY VALUE...] by KEY", with the STARTs still waiting
counted in the one latency's text, or on a line of their own when there
are several. When another
interval follows, a summary is headed by the time of its end,
[15:04:05], and followed by a blank line. Hits the records report lost
(the map of keys was full) or whose value could not be read are counted
on standard error.

# Latency

--latency writes a title "START -> END by KEY: pairs N, latency in ns",
the histogram of the latencies (END's ts minus START's ts) in ns as
above, then

	min D  avg D  max D

in Go duration notation (1.5ms), a line "N END without START, N START
without END yet" when there are such events, and the 10 slowest pairs
(the earlier first among equal latencies):

	LATENCY  the latency
	START    the time of the START event, in the --time style; absent
	         with --time none
	PID, TID, COMM
	         the START event's process, thread and thread name
	KEY      the pairing key's value, for an argN or field key

A second START of the same key replaces the first.

# sdtlist records

Probe sites are shown, after the events, in the aligned table of
sdtlist -t; see sdtlist's documentation for its columns and how text is
quoted in them. When the first
site has a pid (sdtlist -p), the live table is shown.

# Errors

A line that holds no record is reported on standard error as

	sdtfmt: FILE: line N: REASON

(without FILE for standard input; "line N (truncated)" for a last line
with no newline) and skipped; the other lines are formatted, and the exit
status is 1. A line longer than 1 MiB (those of sdtattach take a few KiB)
is skipped so too, "longer than 1048576 bytes; skipped", without being
held in memory. So is it for a FILE that cannot be opened. In the summary
modes, lost events are reported on standard error. Usage errors exit
with status 2: among them a flag given an empty or malformed value
(--hist "", --interval 0) and a probe pattern no probe could match (an
empty PROVIDER or NAME, or a second ':').
*/
package main
