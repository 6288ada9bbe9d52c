package attach

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sdtkit/sdtkit/pkg/hit"
)

// stoppableSource is a fakeSource that says when it is stopped and
// closed, and fails its Close with closeErr.
type stoppableSource struct {
	fakeSource
	closed   int
	closeErr error
}

func (s *stoppableSource) Stopped() <-chan struct{} { return s.stopped }
func (s *stoppableSource) Close() error             { s.closed++; s.Stop(); return s.closeErr }

func TestEvents(t *testing.T) {
	detach := errors.New("no such uprobe")
	for _, tt := range []struct {
		name     string
		events   int
		stopAt   int // leave the loop at this event; 0 never
		closeErr error
		want     []string // the pairs yielded
	}{
		{"all", 3, 0, nil, []string{"1", "2", "3"}},
		{"early", 3, 2, nil, []string{"1", "2"}},
		{"error last", 2, 0, detach, []string{"1", "2", "detach: no such uprobe"}},
		{"early, no error after", 3, 1, detach, []string{"1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &stoppableSource{fakeSource: fakeSource{stopped: make(chan struct{})}, closeErr: tt.closeErr}
			for i := range tt.events {
				src.events = append(src.events, Event{Event: hit.Event{TID: uint32(i + 1)}})
			}
			src.Stop() // the events given, then io.EOF
			tr := &Tracer{src: src, plan: &Plan{}}
			var got []string
			for ev, err := range tr.Events(context.Background()) {
				if err != nil {
					got = append(got, err.Error())
					continue
				}
				got = append(got, string(rune('0'+ev.TID)))
				if len(got) == tt.stopAt {
					break
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("yielded %q, want %q", got, tt.want)
			}
			if src.closed != 1 {
				t.Errorf("closed %d times, want once", src.closed)
			}
		})
	}
}
