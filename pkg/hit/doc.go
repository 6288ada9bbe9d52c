// Package hit holds what a hit of a probe site gives, whichever backend
// read it (the BPF program of package bpf, or uprobe events through
// package tracefs): the Event, with its time, process, thread, CPU and
// command, and the raw Value of each argument, an integer of its size
// and sign, a float, or a string with its address, or not read.
package hit
