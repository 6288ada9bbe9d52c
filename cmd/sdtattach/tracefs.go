package main

import (
	"fmt"

	"github.com/sdtkit/sdtkit/pkg/attach"
)

// checkBackend rejects a --backend that is none of the backends.
func (c *config) checkBackend() error {
	if _, err := attach.ParseBackend(c.backend); err != nil {
		return fmt.Errorf("--backend %w", err)
	}
	return nil
}
