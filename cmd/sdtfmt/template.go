package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/eventtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// A pattern matches probes by provider and name (probespec.ParsePattern).
type pattern struct {
	spec probespec.Spec
	text string // as the command line gave it
}

// parseProbe parses a pattern. The error says what is wrong without
// repeating the pattern, which the caller names.
func parseProbe(s string) (pattern, error) {
	spec, err := probespec.ParsePattern(s)
	if se := (*probespec.SyntaxError)(nil); errors.As(err, &se) {
		return pattern{}, errors.New(se.Msg)
	}
	return pattern{spec, s}, err
}

func (p pattern) match(provider, name string) bool { return p.spec.Match(provider, name) }

// A template is a -f 'PROVIDER:NAME=FORMAT': how to write the arguments
// of the matching probes.
type template struct {
	probe  pattern
	format *eventtext.Format
}

func parseTemplate(s string) (template, error) {
	probe, format, ok := strings.Cut(s, "=")
	if !ok || probe == "" {
		return template{}, errors.New("want PROVIDER:NAME=FORMAT")
	}
	p, err := parseProbe(probe)
	if err != nil {
		return template{}, fmt.Errorf("%s: %w", probe, err)
	}
	f, err := eventtext.ParseFormat(format)
	return template{p, f}, err
}

// formats picks the format of each probe's events: that of the first
// template matching the probe, nil for none.
type formats struct {
	templates []template
	chosen    map[probeName]*eventtext.Format
}

type probeName struct{ provider, name string }

func (fs *formats) of(e *ndjson.Event) *eventtext.Format {
	if len(fs.templates) == 0 {
		return nil
	}
	p := probeName{e.Provider, e.Name}
	f, ok := fs.chosen[p]
	if !ok {
		for _, t := range fs.templates {
			if t.probe.match(e.Provider, e.Name) {
				f = t.format
				break
			}
		}
		if fs.chosen == nil {
			fs.chosen = make(map[probeName]*eventtext.Format)
		}
		fs.chosen[p] = f
	}
	return f
}
