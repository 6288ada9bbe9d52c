package eventtext

import (
	"strings"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/event"
)

// A value wider than its column widens the column for the lines after it;
// the lines before stay as written.
func TestViewGrows(t *testing.T) {
	var b strings.Builder
	v := NewView(&b, TimeNone)
	for _, comm := range []string{"a", "a-thread-name-of-20", "b"} {
		v.WriteEvent(&event.Event{PID: 1, TID: 1, Comm: comm, Provider: "p", Name: "n", Args: []event.Value{{Kind: event.Int, Int: -1}}}, nil)
	}
	want := "" +
		"PID     TID     COMM            PROBE                    ARGS\n" +
		"1       1       a               p:n                      -1\n" +
		"1       1       a-thread-name-of-20 p:n                      -1\n" +
		"1       1       b                   p:n                      -1\n"
	if b.String() != want {
		t.Errorf("view =\n%s\nwant\n%s", b.String(), want)
	}
}
