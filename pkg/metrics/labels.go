package metrics

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

// LabelName returns the label name of the values of key k: the key as
// --by names it (pid, comm, arg0, a field), prefixed with "key_" when it
// is a name the Exporter's own labels take (provider, probe, binary,
// arg), one Prometheus gives a meaning (le, quantile, and those that
// begin with __), or no label name (one that begins with a digit).
// Two keys can have the same label name, such as the fields le and
// key_le: LabelNames reports them.
func LabelName(k aggregate.Key) string {
	if renamed(k.String()) != "" {
		return "key_" + k.String()
	}
	return k.String()
}

// renamed returns why LabelName prefixes name, or "" when it does not.
func renamed(name string) string {
	switch {
	case name == "provider" || name == "probe" || name == "binary" || name == "arg":
		return "it is a label of the exporter's own"
	case name == "le":
		return "it is the label of Prometheus's histogram buckets"
	case name == "quantile":
		return "it is the label of Prometheus's summary quantiles"
	case strings.HasPrefix(name, "__"):
		return "Prometheus keeps names that begin with __"
	case name == "" || name[0] >= '0' && name[0] <= '9':
		return "a label name begins with a letter or _"
	}
	return ""
}

// ErrStackLabel is the error of LabelNames for the key ustack: a stack
// makes no label, its values too many and too long for a time series
// database.
var ErrStackLabel = errors.New("a stack is no Prometheus label (too many values, too long): aggregate by it without serving metrics")

// LabelNames returns the label names of the values of the keys by, in
// their order (see LabelName), or an error that names two keys whose
// label names are the same, or ErrStackLabel for a stack.
func LabelNames(by []aggregate.Key) ([]string, error) {
	names := make([]string, len(by))
	for i, k := range by {
		if k.Kind == aggregate.KeyUStack {
			return nil, fmt.Errorf("%s: %w", k, ErrStackLabel)
		}
		names[i] = LabelName(k)
		for j := range i {
			if names[j] != names[i] {
				continue
			}
			a, b := by[j].String(), k.String()
			why := renamed(a)
			if why == "" {
				a, b, why = b, a, renamed(b)
			}
			return nil, fmt.Errorf("keys %s and %s would both be label %s: %s is renamed, as %s; give one of them as argN", a, b, names[i], a, why)
		}
	}
	return names, nil
}

// label returns s as a label value: as it is when it is valid UTF-8 made
// of printable characters, Go-quoted otherwise, so that no control byte
// reaches a dashboard raw.
func label(s string) string {
	return string(termtext.AppendPrintable(nil, s))
}
