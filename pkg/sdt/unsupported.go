//go:build !linux || !(amd64 || arm64)

package sdt

// object and space have nothing to hold where probes cannot be loaded.
type (
	object struct{ path string }
	space  struct{}
)

func (p *Provider) load() error { return ErrNotSupported }

func (o *object) close() error { return nil }

func call(fn uintptr, regs *[MaxArgs]uint64) {}
