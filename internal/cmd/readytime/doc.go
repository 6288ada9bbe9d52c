// Readytime measures how long a command takes from exec to ready: to the
// first line of its output that says it is ready, rather than to its
// exit. scripts/bench-attach uses it for the attach latency of tracers,
// which print a line once their probes are attached and only then detach
// and exit.
//
// Usage:
//
//	readytime [-runs N] [-warmup N] [-match REGEXP] [-stderr] COMMAND [ARG...]
//
// Readytime runs COMMAND -warmup times untimed, then -runs times timed.
// For each timed run it records the time from just before the command is
// started to the moment the first line of its standard output (of its
// standard error with -stderr) that matches REGEXP (default: any line)
// is read, and the time to its exit. A run that exits with a non-zero
// status or without printing a matching line is an error. The other
// stream is discarded.
//
// It prints one JSON object on standard output:
//
//	{"runs":N,"ready":{"min":S,"median":S,"max":S},"exit":{"min":S,"median":S,"max":S},"line":"..."}
//
// where S are seconds and line is the matching line of the last run.
package main
