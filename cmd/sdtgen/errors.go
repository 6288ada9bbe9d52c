package main

import "errors"

var (
	errNoProbes    = errors.New("no probes")
	errLongDouble  = errors.New("long double arguments are not supported")
	errUnknownType = errors.New("not an integer, pointer, string or floating-point type")
)
