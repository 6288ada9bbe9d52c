package main

import (
	"errors"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/filter"
)

// flagWords returns the message of err, an error of the attach engine,
// in the words of sdtattach's flags.
func flagWords(err error) string {
	msg := err.Error()
	var ke *attach.KeyError
	if errors.As(err, &ke) && errors.Is(ke.Err, attach.ErrNeitherStartNorEnd) {
		// The key is START,END of --latency.
		msg = strings.Replace(msg, ke.Key+": ", "--latency "+ke.Key+": ", 1)
	}
	if errors.Is(err, filter.ErrNoFields) {
		msg += " (--types does not declare it)"
	}
	if errors.As(err, new(*attach.Fallback)) {
		msg = strings.Replace(msg, "; tracing with the tracefs backend", "; tracing with --backend tracefs", 1)
	}
	if errors.As(err, new(*attach.TracefsError)) {
		msg = strings.Replace(msg, "tracefs backend: ", "--backend tracefs: ", 1)
	}
	return strings.Replace(msg, "(Options.UStack)", "(--ustack)", 1)
}

// A flagError is an error of a package, told in sdtattach's words.
type flagError struct{ err error }

func (e *flagError) Error() string { return flagWords(e.err) }
func (e *flagError) Unwrap() error { return e.err }

// inFlagWords returns err told in sdtattach's words.
func inFlagWords(err error) error {
	if err == nil {
		return nil
	}
	return &flagError{err}
}
