package attach

import (
	"context"
	"os"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// Types gives the names and types of probe arguments from DTrace
// provider definitions (dtrace.Parse), as `dtrace -h` would declare
// them: strings as strings, integers with the size and sign of their C
// type, other pointers in hex. The types of a specification win over
// these.
type Types struct {
	// Source names the definitions in warnings, such as "app.d".
	Source    string
	Providers []dtrace.Provider
}

// ReadTypes reads the DTrace provider definitions of file name, the
// Types it names Source. The file may be a named pipe whose writer never
// comes: ReadTypes returns an error wrapping the cause of ctx as soon as
// ctx is done, leaving the reading behind.
func ReadTypes(ctx context.Context, name string) (*Types, error) {
	return aside(ctx, name+" was read", func() (*Types, error) {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		provs, err := dtrace.Parse(name, src)
		if err != nil {
			return nil, err
		}
		return &Types{Source: name, Providers: provs}, nil
	})
}

// lookup returns the types and names of the arguments of a probe; ok is
// false when the definitions do not describe it. The note of a probe
// keeps the "__" of its name, as the provider file writes it.
func (t *Types) lookup(provider, name string) (types []probespec.Type, names []string, ok bool) {
	for i := range t.Providers {
		if t.Providers[i].Name != provider {
			continue
		}
		q := t.Providers[i].Probe(name)
		if q == nil {
			return nil, nil, false
		}
		types = make([]probespec.Type, len(q.Args))
		names = make([]string, len(q.Args))
		for j, a := range q.Args {
			types[j] = argType(dtrace.Classify(a.Type))
			names[j] = a.Name
		}
		return types, names, true
	}
	return nil, nil, false
}

// argType is how an argument of a C type is shown.
func argType(t dtrace.Type) probespec.Type {
	switch t.Kind {
	case dtrace.String:
		return probespec.Type{Kind: probespec.String}
	case dtrace.Pointer:
		return probespec.Type{Kind: probespec.Hex}
	case dtrace.Signed, dtrace.Unsigned:
		return probespec.Type{Kind: probespec.Int, Size: t.Size, Signed: t.Kind == dtrace.Signed}
	}
	return probespec.Type{}
}
