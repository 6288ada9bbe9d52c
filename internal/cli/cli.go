// Package cli holds what the sdtkit commands share around their run
// functions: the errors that choose an exit status, and the exit itself.
package cli

import (
	"errors"
	"flag"
	"log"
	"os"
)

// ErrUsage and ErrFailed tell Exit which status to use when the message
// has already been printed: 2 for a usage error, 1 for a failure.
var (
	ErrUsage  = errors.New("usage")
	ErrFailed = errors.New("failed")
)

// Exit ends the program with the status err calls for: 0 for nil or
// flag.ErrHelp, 2 for ErrUsage, 1 for anything else, which it prints
// through the standard logger first unless it is ErrFailed.
func Exit(err error) {
	os.Exit(Status(err))
}

// Status returns the exit status for err, printing err as Exit does.
func Status(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	case errors.Is(err, ErrFailed):
		return 1
	}
	log.Print(err)
	return 1
}
