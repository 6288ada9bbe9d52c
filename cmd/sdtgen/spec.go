package main

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
)

// loadSpec reads the provider file spec into the probes to generate, in
// file order.
func loadSpec(spec specFile) ([]*probe, error) {
	providers, err := loadProviders(spec)
	if err != nil {
		return nil, err
	}
	probes, err := probesOf(providers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	return probes, nil
}

// loadProviders reads and parses the provider file spec; a file with no
// probes is an error.
func loadProviders(spec specFile) ([]dtrace.Provider, error) {
	name := spec.name
	src, err := spec.read()
	if err != nil {
		return nil, err
	}
	providers, err := dtrace.Parse(name, src)
	if err != nil {
		return nil, err
	}
	for _, pv := range providers {
		if len(pv.Probes) > 0 {
			return providers, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", name, errNoProbes)
}

// probesOf converts parsed providers, classifying each argument's type.
func probesOf(providers []dtrace.Provider) ([]*probe, error) {
	var probes []*probe
	for _, pv := range providers {
		for _, pr := range pv.Probes {
			p := &probe{provider: pv.Name, name: pr.Name}
			for _, a := range pr.Args {
				t, err := argTypeOf(a.Type)
				if err != nil {
					return nil, fmt.Errorf("probe %s argument %s: %w", p, a.Name, err)
				}
				p.args = append(p.args, t)
			}
			if err := p.check(); err != nil {
				return nil, err
			}
			probes = append(probes, p)
		}
	}
	if len(probes) == 0 {
		return nil, errNoProbes
	}
	return probes, nil
}

func argTypeOf(ctype string) (argType, error) {
	t := dtrace.Classify(ctype)
	a := argType{ctype: ctype, size: t.Size}
	switch t.Kind {
	case dtrace.Signed:
		a.signed = true
	case dtrace.Unsigned, dtrace.Pointer:
	case dtrace.String:
		a.str = true
	case dtrace.Float:
		if t.Size != 4 && t.Size != 8 {
			return a, fmt.Errorf("type %q: %w", ctype, errLongDouble)
		}
		a.float = true
	default:
		return a, fmt.Errorf("type %q: %w", ctype, errUnknownType)
	}
	return a, nil
}
