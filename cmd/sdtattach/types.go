package main

import (
	"fmt"
	"os"

	"github.com/sdtkit/sdtkit/pkg/dtrace"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// loadTypes reads a DTrace provider file for --types.
func loadTypes(name string) (typeSource, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--types: %w", err)
	}
	provs, err := dtrace.Parse(name, src)
	if err != nil {
		return nil, fmt.Errorf("--types: %w", err)
	}
	return providerTypes(provs), nil
}

// providerTypes returns the type source of parsed providers. The note of
// a probe keeps the "__" of its name, as the provider file writes it.
func providerTypes(provs []dtrace.Provider) typeSource {
	return func(provider, name string) ([]probespec.Type, []string, bool) {
		for i := range provs {
			if provs[i].Name != provider {
				continue
			}
			q := provs[i].Probe(name)
			if q == nil {
				return nil, nil, false
			}
			types := make([]probespec.Type, len(q.Args))
			names := make([]string, len(q.Args))
			for j, a := range q.Args {
				types[j] = argType(dtrace.Classify(a.Type))
				names[j] = a.Name
			}
			return types, names, true
		}
		return nil, nil, false
	}
}

// argType is how an argument of a C type is shown: strings as strings,
// integers with the size and sign of the C type, other pointers in hex,
// and anything else as the note gives it.
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
