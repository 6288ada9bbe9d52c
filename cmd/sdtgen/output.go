package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

// writeHeaderFile writes the header of the provider file spec to out, or
// to stdout when out is "".
func writeHeaderFile(out string, spec specFile, stdout io.Writer) error {
	providers, err := loadProviders(spec)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		if err := dtrace.WriteHeader(w, spec.name, providers); err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
		return nil
	}
	if out == "" {
		return write(stdout)
	}
	return writeFile(out, write)
}

// writeObjectFile writes to out the object file defining the semaphores
// of the probes of the provider file spec, in file order.
func writeObjectFile(out string, spec specFile) error {
	providers, err := loadProviders(spec)
	if err != nil {
		return err
	}
	var names []string
	for _, pv := range providers {
		for _, pr := range pv.Probes {
			names = append(names, dtrace.SemaphoreName(pv.Name, pr.Name))
		}
	}
	b, err := elfwriter.SemaphoreObject(names)
	if err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	return os.WriteFile(out, b, 0o644)
}
