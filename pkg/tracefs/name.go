package tracefs

import (
	"strconv"
	"strings"
)

// MaxName is the longest group or event name the kernel takes
// (MAX_EVENT_NAME_LEN, 64, less the NUL).
const MaxName = 63

// A Namer names the events of Definitions: each name is unique within
// its group. The zero Namer is ready to use.
type Namer struct {
	used map[string]bool // "group/event"
}

// Name returns the event name of the next site of probe name in group:
// name made acceptable to the kernel (Sanitize), then, when that is taken
// in the group, with _1, _2 and on appended.
func (n *Namer) Name(group, name string) string {
	if n.used == nil {
		n.used = make(map[string]bool)
	}
	base := Sanitize(name)
	ev := base
	for i := 1; n.used[group+"/"+ev]; i++ {
		suffix := "_" + strconv.Itoa(i)
		ev = base[:min(len(base), MaxName-len(suffix))] + suffix
	}
	n.used[group+"/"+ev] = true
	return ev
}

// Group returns the group of the events of a provider's probes: prefix
// and the provider, made acceptable (Sanitize); perf names them
// "sdt_PROVIDER".
func Group(prefix, provider string) string { return Sanitize(prefix + provider) }

// Sanitize returns s as a name the kernel takes: each byte that is not a
// letter, a digit or '_' becomes '_', a leading digit gets a '_' before
// it, and the result is cut at MaxName bytes; "_" for "".
func Sanitize(s string) string {
	var b strings.Builder
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		b.WriteByte('_')
	}
	for i := 0; i < len(s) && b.Len() < MaxName; i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
