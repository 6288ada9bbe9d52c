package dtrace

import (
	"fmt"
	"strings"
)

// A Provider is one provider block of a provider file.
type Provider struct {
	Name   string
	Probes []Probe
}

// A Probe is one probe declaration.
type Probe struct {
	Name string // as written, with "__" kept
	Args []Arg
}

// An Arg is one argument of a probe.
type Arg struct {
	// Type is the C type in canonical spelling: words separated by one
	// space, and " *" before the first '*' ("const char *", "char **").
	Type string
	// Name is the name given in the file, or argN after the argument's
	// position N (from 0) when the file gives none.
	Name string
}

// DisplayName returns the probe name as DTrace shows it, with each "__"
// replaced by "-".
func (p *Probe) DisplayName() string { return strings.ReplaceAll(p.Name, "__", "-") }

// Probe returns the probe called name, as written in the file (with
// "__"), or nil.
func (p *Provider) Probe(name string) *Probe {
	for i := range p.Probes {
		if p.Probes[i].Name == name {
			return &p.Probes[i]
		}
	}
	return nil
}

// String returns the provider block in canonical form, which Parse reads
// back into the same Provider.
func (p *Provider) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %s {\n", p.Name)
	for _, q := range p.Probes {
		fmt.Fprintf(&b, "\tprobe %s(", q.Name)
		for i, a := range q.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Type)
			if !strings.HasSuffix(a.Type, "*") {
				b.WriteByte(' ')
			}
			b.WriteString(a.Name)
		}
		b.WriteString(");\n")
	}
	b.WriteString("};\n")
	return b.String()
}

// A SyntaxError reports input that is not a provider file, at a position
// given from 1 in lines and bytes.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}
