package main

import "errors"

var (
	errNoProbes    = errors.New("no probes")
	errFloat       = errors.New("floating-point arguments are not supported")
	errUnknownType = errors.New("not an integer, pointer or string type")
)
