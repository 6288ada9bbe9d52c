package main

import (
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/event"
)

// A pattern matches probes by provider and name, as globs.
type pattern struct{ provider, name string }

// text is the pattern as the command line gave it.
func (p pattern) text() string {
	if p.provider == "*" {
		return p.name
	}
	return p.String()
}

func (p pattern) valid() error {
	if _, err := path.Match(p.provider, ""); err != nil {
		return err
	}
	_, err := path.Match(p.name, "")
	return err
}

func (p pattern) match(provider, name string) bool {
	ok1, _ := path.Match(p.provider, provider)
	ok2, _ := path.Match(p.name, name)
	return ok1 && ok2
}

func (p pattern) String() string { return p.provider + ":" + p.name }

// keyKind says where a key takes its value from.
type keyKind uint8

const (
	keyPID keyKind = iota
	keyTID
	keyComm
	keyArg
	keyField
)

// A key picks one value out of an event: for --by, --hist and --latency.
type key struct {
	kind  keyKind
	arg   int
	field string
}

var errKey = errors.New("want pid, tid, comm, argN or a field name")

func parseKey(s string) (*key, error) {
	switch s {
	case "pid":
		return &key{kind: keyPID}, nil
	case "tid":
		return &key{kind: keyTID}, nil
	case "comm":
		return &key{kind: keyComm}, nil
	case "":
		return nil, errKey
	}
	if n, ok := strings.CutPrefix(s, "arg"); ok {
		if i, err := strconv.Atoi(n); err == nil && i >= 0 && n[0] != '+' {
			return &key{kind: keyArg, arg: i}, nil
		}
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return nil, errKey
		}
	}
	return &key{kind: keyField, field: s}, nil
}

func (k *key) String() string {
	switch k.kind {
	case keyPID:
		return "pid"
	case keyTID:
		return "tid"
	case keyComm:
		return "comm"
	case keyArg:
		return "arg" + strconv.Itoa(k.arg)
	}
	return k.field
}

// value returns the key's value in e; false when e has no such argument
// or field.
func (k *key) value(e *event.Event) (event.Value, bool) {
	switch k.kind {
	case keyPID:
		return intValue(e.PID), true
	case keyTID:
		return intValue(e.TID), true
	case keyComm:
		return event.Value{Kind: event.String, Str: e.Comm}, true
	case keyArg:
		if k.arg < len(e.Args) {
			return e.Args[k.arg], true
		}
		return event.Value{}, false
	}
	return e.Field(k.field)
}

// text returns the key's value in e as people read it (see
// event.Value.AppendText), "?" when missing.
func (k *key) text(e *event.Event) string {
	if k.kind == keyComm {
		return termtext.String(e.Comm)
	}
	v, _ := k.value(e)
	return v.String()
}

func intValue(i int64) event.Value {
	if i < 0 {
		return event.Value{Kind: event.Int, Int: i}
	}
	return event.Value{Kind: event.Uint, Uint: uint64(i)}
}
