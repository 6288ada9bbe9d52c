package aggregate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// KeyKind says where a Key takes its value from.
type KeyKind uint8

const (
	KeyPID   KeyKind = iota + 1 // the process ID
	KeyTID                      // the thread ID
	KeyComm                     // the thread name
	KeyArg                      // argument Arg, from 0
	KeyField                    // the sdtattach --types field called Field
	// KeyUStack is the thread's user stack at the probe, the frames of
	// an event's "ustack" (see StackValue).
	KeyUStack
)

// A Key picks one value out of an event, to group by or to count. Keys
// are comparable; the zero Key is no key.
type Key struct {
	Kind  KeyKind
	Arg   int    // for KeyArg
	Field string // for KeyField
}

// ErrKey is the error of ParseKey for text that names no key.
var ErrKey = errors.New("want pid, tid, comm, ustack, argN or a field name")

// ParseKey parses a key as the tools take it: pid, tid, comm, ustack,
// argN (N a decimal number from 0) or a field name, made of ASCII
// letters, digits and '_' (a field called ustack is named by its argN).
func ParseKey(s string) (Key, error) {
	switch s {
	case "pid":
		return Key{Kind: KeyPID}, nil
	case "tid":
		return Key{Kind: KeyTID}, nil
	case "comm":
		return Key{Kind: KeyComm}, nil
	case "ustack":
		return Key{Kind: KeyUStack}, nil
	case "":
		return Key{}, ErrKey
	}
	if n, ok := strings.CutPrefix(s, "arg"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && n[0] != '+' {
			return Key{Kind: KeyArg, Arg: i}, nil
		}
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return Key{}, ErrKey
		}
	}
	return Key{Kind: KeyField, Field: s}, nil
}

// ParseKeys parses keys separated by commas, as sdtattach --by takes
// them: pid,comm. An error names the key it is about.
func ParseKeys(s string) ([]Key, error) {
	var keys []Key
	for _, f := range strings.Split(s, ",") {
		k, err := ParseKey(f)
		if err != nil {
			if f == "" {
				f = `""`
			}
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if slices.Contains(keys, k) {
			return nil, fmt.Errorf("%s: given twice", f)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// String returns the key as ParseKey takes it; "" for the zero Key.
func (k Key) String() string {
	switch k.Kind {
	case KeyPID:
		return "pid"
	case KeyTID:
		return "tid"
	case KeyComm:
		return "comm"
	case KeyUStack:
		return "ustack"
	case KeyArg:
		return "arg" + strconv.Itoa(k.Arg)
	}
	return k.Field
}

// Value returns the key's value in e; false when e has no such argument
// or field.
func (k Key) Value(e *ndjson.Event) (ndjson.Value, bool) {
	switch k.Kind {
	case KeyPID:
		return intValue(e.PID), true
	case KeyTID:
		return intValue(e.TID), true
	case KeyComm:
		return ndjson.Value{Kind: ndjson.String, Str: e.Comm}, true
	case KeyArg:
		if k.Arg < len(e.Args) {
			return e.Args[k.Arg], true
		}
		return ndjson.Value{}, false
	case KeyField:
		return e.Field(k.Field)
	case KeyUStack:
		if e.UStack == nil {
			return ndjson.Value{}, false
		}
		return StackValue(e.UStack), true
	}
	return ndjson.Value{}, false
}

func intValue(i int64) ndjson.Value {
	if i < 0 {
		return ndjson.Value{Kind: ndjson.Int, Int: i}
	}
	return ndjson.Value{Kind: ndjson.Uint, Uint: uint64(i)}
}

// Format writes a value of the key as people read it, and as groups hold
// it: a thread name as it is unless a terminal could misread it (then
// quoted as in Go), a stack as its frames, innermost first, each as
// StackFrame names it, separated by " < " ("inner+0xc < outer+0x1e <
// main+0x2a"), other values as ndjson.Value.String writes them.
// A value read elsewhere, such as from a BPF map, renders the same when
// it is given as the ndjson.Value an event would hold.
func (k Key) Format(v ndjson.Value) string {
	if k.Kind == KeyComm && v.Kind == ndjson.String {
		return termtext.String(v.Str)
	}
	if k.Kind == KeyUStack {
		return formatStack(v)
	}
	return v.String()
}

// Text returns the key's value in e as Format writes it, "?" when e has
// none.
func (k Key) Text(e *ndjson.Event) string {
	v, _ := k.Value(e)
	return k.Format(v)
}

// A Group is what an aggregation keeps one count, histogram or set of
// stats for: a probe, and the value of the key it groups by.
type Group struct {
	Provider, Name string
	// By is the value as Key.Format writes it; "" with no key. With
	// several keys, their values are separated by NUL bytes, which no
	// written value holds.
	By string
}

// Values returns the values of the keys of By, one per key.
func (g Group) Values() []string { return strings.Split(g.By, keySep) }

// GroupOf returns the group of e, by the value of key by (none for the
// zero Key).
func GroupOf(e *ndjson.Event, by Key) Group {
	g := Group{Provider: e.Provider, Name: e.Name}
	if by != (Key{}) {
		g.By = by.Text(e)
	}
	return g
}

// Probe returns PROVIDER:NAME, each part as a terminal shows it safely.
func (g Group) Probe() string {
	return string(termtext.Append(append(termtext.Append(nil, g.Provider), ':'), g.Name))
}

// Compare orders groups by provider, name and key value, the values that
// are integers by number and before the others.
func (g Group) Compare(o Group) int {
	return cmp.Or(
		cmp.Compare(g.Provider, o.Provider),
		cmp.Compare(g.Name, o.Name),
		compareTuples(g.By, o.By),
	)
}

// compareTuples compares the values of several keys, one by one.
func compareTuples(x, y string) int {
	for {
		xv, xrest, xmore := strings.Cut(x, keySep)
		yv, yrest, ymore := strings.Cut(y, keySep)
		if c := compareValues(xv, yv); c != 0 || !xmore || !ymore {
			return cmp.Or(c, cmp.Compare(len(x), len(y)))
		}
		x, y = xrest, yrest
	}
}

func compareValues(x, y string) int {
	i, errx := strconv.ParseInt(x, 10, 64)
	j, erry := strconv.ParseInt(y, 10, 64)
	switch {
	case errx == nil && erry == nil:
		return cmp.Compare(i, j)
	case errx == nil:
		return -1
	case erry == nil:
		return 1
	}
	return cmp.Compare(x, y)
}

// SortedGroups returns the groups of m in the order of Group.Compare.
func SortedGroups[V any](m map[Group]V) []Group {
	return slices.SortedFunc(maps.Keys(m), Group.Compare)
}
