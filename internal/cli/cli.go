// Package cli holds what the sdtkit commands share around their run
// functions: the errors that choose an exit status, and the exit itself.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/sdtkit/sdtkit/internal/termtext"
)

// Setup sets the standard logger up for the command name and returns the
// standard error its run function is to write to. Diagnostics quote
// paths, provider and probe names and thread names that files and traced
// programs choose, so everything written there goes through
// termtext.NewWriter: no control byte reaches the terminal raw.
func Setup(name string) io.Writer {
	stderr := termtext.NewWriter(os.Stderr)
	log.SetFlags(0)
	log.SetPrefix(name + ": ")
	log.SetOutput(stderr)
	return stderr
}

// ErrUsage and ErrFailed tell Exit which status to use when the message
// has already been printed: 2 for a usage error, 1 for a failure.
var (
	ErrUsage  = errors.New("usage")
	ErrFailed = errors.New("failed")
)

// An ExitStatus is an error that makes Exit end the program with that
// status, printing nothing: sdtattach -c exits with its command's.
type ExitStatus int

func (s ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Exit ends the program with the status err calls for: 0 for nil or
// flag.ErrHelp, 2 for ErrUsage, 1 for anything else, which it prints
// through the standard logger first unless it is ErrFailed.
func Exit(err error) {
	os.Exit(Status(err))
}

// Status returns the exit status for err, printing err as Exit does.
func Status(err error) int {
	var es ExitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &es):
		return int(es)
	case errors.Is(err, ErrUsage):
		return 2
	case errors.Is(err, ErrFailed):
		return 1
	}
	Print(log.Default(), err)
	return 1
}

// Print prints err through logger, each of its lines as a message of its
// own, so that every error of several joined by errors.Join starts with
// the logger's prefix, the tool's name.
func Print(logger *log.Logger, err error) {
	for line := range strings.SplitSeq(err.Error(), "\n") {
		logger.Print(line)
	}
}

// FlagSet returns a flag set for the command name whose usage message is
// usage followed by the flags, printed to stderr.
func FlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args with fs. It returns flag.ErrHelp for -h and ErrUsage
// for a bad flag, which fs has already reported.
func Parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return ErrUsage
}

// Shown returns a flag's value as messages write it, so that an empty
// one shows: "" for the empty string.
func Shown(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
