package sdt

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

var (
	// ErrLoaded is returned by AddProbe and Load for a loaded Provider.
	ErrLoaded = errors.New("usdt: provider is loaded")
	// ErrNotLoaded is returned by Fire for a Provider that is not loaded,
	// or was closed.
	ErrNotLoaded = errors.New("usdt: provider is not loaded")
	// ErrNotSupported is returned by Load where probes cannot be
	// defined: other systems than Linux, machines other than amd64 and
	// arm64.
	ErrNotSupported = errors.New("usdt: not supported on " + runtime.GOOS + "/" + runtime.GOARCH)
)

// A Provider is a named set of probes, the PROVIDER of PROVIDER:NAME.
type Provider struct {
	name string

	// mu is held for reading by Fire while it calls into the object, and
	// for writing by AddProbe, Load and Close.
	mu     sync.RWMutex
	probes []*Probe
	byName map[string]*Probe
	obj    *object // nil unless loaded
	space  *space  // address space reserved for the object
}

// NewProvider returns a Provider named name: letters, digits and '_',
// not starting with a digit, as in a C identifier.
func NewProvider(name string) (*Provider, error) {
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("usdt: provider %q: %w", name, err)
	}
	return &Provider{name: name, byName: make(map[string]*Probe)}, nil
}

// checkName checks that name can be a provider or probe name: tracers
// parse PROVIDER:NAME, and sys/sdt.h semaphores are named
// PROVIDER_NAME_semaphore.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > 128 {
		return errors.New("name longer than 128 bytes")
	}
	for i, c := range name {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return fmt.Errorf("character %q at %d: want letters, digits and _, not starting with a digit", c, i)
		}
	}
	return nil
}

// Name returns the provider's name.
func (p *Provider) Name() string { return p.name }

// AddProbe adds a probe named name with arguments of the types args (at
// most MaxArgs). Probes are added before Load, or between Close and the
// next Load.
func (p *Provider) AddProbe(name string, args ...Type) (*Probe, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	full := p.name + ":" + name
	if p.obj != nil {
		return nil, fmt.Errorf("usdt: add %s: %w", full, ErrLoaded)
	}
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("usdt: add probe %q of %s: %w", name, p.name, err)
	}
	if p.byName[name] != nil {
		return nil, fmt.Errorf("usdt: add %s: probe already defined", full)
	}
	if len(args) > MaxArgs {
		return nil, fmt.Errorf("usdt: add %s: %d arguments, at most %d", full, len(args), MaxArgs)
	}
	for i, t := range args {
		if !t.valid() {
			return nil, fmt.Errorf("usdt: add %s: arg%d: unknown %v", full, i, t)
		}
	}
	pr := &Probe{p: p, name: name, full: full, args: append([]Type(nil), args...)}
	pr.st.Store(&idle)
	p.probes = append(p.probes, pr)
	p.byName[name] = pr
	return pr, nil
}

// Probes returns the provider's probes in the order they were added.
func (p *Provider) Probes() []*Probe {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return append([]*Probe(nil), p.probes...)
}

// Load builds the provider's object and maps it into the process: from
// then on tracers see its probes. Loading a loaded Provider returns
// ErrLoaded.
func (p *Provider) Load() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.obj != nil {
		return fmt.Errorf("usdt: load %s: %w", p.name, ErrLoaded)
	}
	if err := p.load(); err != nil {
		return fmt.Errorf("usdt: load %s: %w", p.name, err)
	}
	return nil
}

// Path returns a path by which tracers can open the loaded object, such
// as /proc/PID/fd/N, or "" when the Provider is not loaded.
func (p *Provider) Path() string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.obj == nil {
		return ""
	}
	return p.obj.path
}

// Close removes the probes from the process, after the Fire calls in
// progress have returned. Closing a Provider that is not loaded does
// nothing. A closed Provider may be loaded again.
func (p *Provider) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.obj == nil {
		return nil
	}
	for _, pr := range p.probes {
		pr.st.Store(&idle)
	}
	err := p.obj.close()
	p.obj = nil
	if err != nil {
		return fmt.Errorf("usdt: close %s: %w", p.name, err)
	}
	return nil
}
