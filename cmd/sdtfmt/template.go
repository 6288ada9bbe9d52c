package main

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/event"
	"github.com/sdtkit/sdtkit/pkg/eventtext"
)

// A pattern matches probes by provider and name, as globs.
type pattern struct{ provider, name string }

// errProbe reports a probe pattern that could match no probe.
var errProbe = errors.New("want PROVIDER:NAME or NAME, each a glob")

// parseProbe splits PROVIDER:NAME; a pattern without ':' matches the name
// of any provider. Both parts are globs as in path.Match, and neither may
// be empty or hold another ':', which no probe would match.
func parseProbe(s string) (pattern, error) {
	provider, name, ok := strings.Cut(s, ":")
	if !ok {
		provider, name = "*", s
	}
	if provider == "" || name == "" || strings.Contains(name, ":") {
		return pattern{}, errProbe
	}
	if _, err := path.Match(provider, ""); err != nil {
		return pattern{}, err
	}
	_, err := path.Match(name, "")
	return pattern{provider, name}, err
}

// text is the pattern as the command line gave it.
func (p pattern) text() string {
	if p.provider == "*" {
		return p.name
	}
	return p.provider + ":" + p.name
}

func (p pattern) match(provider, name string) bool {
	ok1, _ := path.Match(p.provider, provider)
	ok2, _ := path.Match(p.name, name)
	return ok1 && ok2
}

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

func (fs *formats) of(e *event.Event) *eventtext.Format {
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
