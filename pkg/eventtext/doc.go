// Package eventtext writes the probe events of sdtattach for people, as
// sdtfmt shows them: one aligned line per event, the arguments in a
// printf-like format, and the times of events.
//
// A View writes a header and one line per event with the columns of
// bcc's trace:
//
//	TIME       PID     TID     COMM            PROBE                    ARGS
//	0.000000   42      42      demo            demo:tick                7 -1 0x1f ?
//
// Each column but ARGS starts at a minimum width, in characters, and
// grows to fit a longer value: lines are written as events arrive, never
// held back to align them, and the header is written again, with the new
// widths, above the line that widened a column, so that every line is
// aligned with the header above it. Text that a traced program chooses (its
// thread name, its provider and probe names, string arguments) is written
// as it is when a terminal shows it unambiguously, and quoted as in Go
// otherwise, so that no control byte reaches the screen.
//
// ARGS is AppendArgs's text (the arguments separated by spaces, or the
// --types fields as NAME=VALUE), or that of a Format, which ParseFormat
// reads from text with conversions such as "%s took %dns".
//
// A Clock writes event times, Unix nanoseconds, in a TimeStyle: seconds
// since the first event it sees (TimeRel), the local time of day
// (TimeAbs), each with microseconds, or nothing (TimeNone).
package eventtext
