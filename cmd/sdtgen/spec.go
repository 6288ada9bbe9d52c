package main

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/fixture"
)

// loadProviders reads and parses the provider file spec; a file with no
// probes is an error.
func loadProviders(spec specFile) ([]dtrace.Provider, error) {
	src, err := spec.read()
	if err != nil {
		return nil, err
	}
	providers, err := dtrace.Parse(spec.name, src)
	if err != nil {
		return nil, err
	}
	for _, pv := range providers {
		if len(pv.Probes) > 0 {
			return providers, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", spec, fixture.ErrNoProbes)
}
