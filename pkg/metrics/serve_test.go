package metrics

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

// countSource counts one hit of p:q per collection.
type countSource struct {
	mu      sync.Mutex
	n       int
	stopped chan struct{}
	once    sync.Once
}

func (s *countSource) Collect(now time.Time) ([]aggregate.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return []aggregate.Record{{TS: now.UnixNano(), Provider: "p", Name: "q", Count: 1}}, nil
}
func (s *countSource) Empty() []aggregate.Record {
	return []aggregate.Record{{Provider: "p", Name: "q"}}
}
func (s *countSource) Stop()                    { s.once.Do(func() { close(s.stopped) }) }
func (s *countSource) Stopped() <-chan struct{} { return s.stopped }

// TestServe checks that each scrape ends an interval whose records Emit
// gets and the metrics count, and that the end of the source ends Serve
// with a last interval.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	src := &countSource{stopped: make(chan struct{})}
	var mu sync.Mutex
	emitted := 0
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), ln, src, &ServeOptions{Emit: func(recs []aggregate.Record) error {
			mu.Lock()
			emitted += len(recs)
			mu.Unlock()
			return nil
		}})
	}()
	for i := 1; i <= 2; i++ {
		resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `sdt_probe_hits_total{binary="",probe="q",provider="p"} ` + string(rune('0'+i))
		if !strings.Contains(string(b), want) {
			t.Errorf("scrape %d: no %q in\n%s", i, want, b)
		}
	}
	src.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not end in 10 s once its source stopped")
	}
	if emitted != 3 || src.n != 3 {
		t.Errorf("%d records emitted of %d collections, want 3 of 3: two scrapes and the last", emitted, src.n)
	}
}

func TestListenAddress(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{":9100", "127.0.0.1:9100"},
		{"0.0.0.0:9100", "0.0.0.0:9100"},
		{"[::1]:80", "[::1]:80"},
		{"localhost:http", "localhost:http"},
		{"9100", ""},
		{"host:", ""},
	} {
		got, err := ListenAddress(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("ListenAddress(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
}
