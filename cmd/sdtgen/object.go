package main

import (
	"fmt"
	"os"

	"github.com/sdtkit/sdtkit/pkg/elfwriter"
)

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
			names = append(names, semaphoreName(pv.Name, pr.Name))
		}
	}
	b, err := elfwriter.SemaphoreObject(names)
	if err != nil {
		return fmt.Errorf("%s: %w", spec, err)
	}
	return os.WriteFile(out, b, 0o644)
}
