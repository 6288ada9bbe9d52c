package main

import "errors"

var (
	errNoProbes    = errors.New("no probes")
	errFloat       = errors.New("floating-point arguments are not supported")
	errUnknownType = errors.New("not an integer, pointer or string type")

	// errUsage tells main to exit with status 2; the
	// message has already been printed when they are returned.
	errUsage = errors.New("usage")
)
