package metrics_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/metrics"
)

// counted is a listener that counts the connections it accepted and
// those still open.
type counted struct {
	net.Listener
	mu                   sync.Mutex
	accepted, open, most int
}

func (l *counted) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.accepted++
	l.open++
	l.most = max(l.most, l.open)
	l.mu.Unlock()
	return &countedConn{Conn: c, l: l}, nil
}

func (l *counted) counts() (accepted, open, most int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.accepted, l.open, l.most
}

type countedConn struct {
	net.Conn
	l    *counted
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// startServer serves e with opts on a loopback port until the test
// ends, and returns the port's address and its counted listener.
func startServer(t *testing.T, e *metrics.Exporter, opts *metrics.ServerOptions) (string, *counted) {
	t.Helper()
	srv, err := metrics.NewServer(e, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &counted{Listener: ln}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve = %v, want %v", err, http.ErrServerClosed)
		}
	})
	return ln.Addr().String(), l
}

// hits returns an Exporter of a probe counted once per scrape.
func hits() *metrics.Exporter {
	return metrics.New(&metrics.Options{Collect: func(time.Time) ([]aggregate.Record, error) {
		return []aggregate.Record{rec(aggregate.Record{Count: 1})}, nil
	}})
}

// scrapeOn sends a scrape on c and reads its response, leaving c open.
func scrapeOn(c net.Conn, timeout time.Duration) (*http.Response, string, error) {
	c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		return nil, "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body), err
}

// closedWithin reports whether the server closes c within d.
func closedWithin(c net.Conn, d time.Duration) error {
	c.SetReadDeadline(time.Now().Add(d))
	n, err := c.Read(make([]byte, 1))
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return nil
	case n > 0:
		return errors.New("the server wrote past its response")
	}
	return fmt.Errorf("not closed within %v: %w", d, err)
}

// The server closes a connection that stays idle after a scrape, sends
// nothing, or sends half a request; a second scrape soon after the first
// has the same connection.
func TestServerTimeouts(t *testing.T) {
	addr, _ := startServer(t, hits(), &metrics.ServerOptions{ReadTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	for _, tt := range []struct {
		name string
		send func(net.Conn) error
	}{
		{"idle after scrapes", func(c net.Conn) error {
			for range 2 {
				if resp, _, err := scrapeOn(c, 5*time.Second); err != nil {
					return err
				} else if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("scrape: %s", resp.Status)
				}
			}
			return nil
		}},
		{"nothing sent", func(net.Conn) error { return nil }},
		{"half a header", func(c net.Conn) error {
			_, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := tt.send(c); err != nil {
				t.Fatal(err)
			}
			if err := closedWithin(c, 5*time.Second); err != nil {
				t.Error(err)
			}
		})
	}
}

// Past MaxConns connections, none idle, the next waits, unaccepted,
// until one closes.
func TestServerMaxConns(t *testing.T) {
	addr, l := startServer(t, hits(), &metrics.ServerOptions{MaxConns: 4, ReadTimeout: time.Minute})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Four that send nothing yet, and a fifth.
	for range 5 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if _, _, err := scrapeOn(conns[4], 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("scrape on a 5th connection = %v, want %v", err, os.ErrDeadlineExceeded)
	}
	conns[0].Close()
	// The request sent above is answered once a connection is free.
	conns[4].SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(conns[4]), nil); err != nil {
		t.Fatalf("scrape on the 5th connection once the 1st closed: %v", err)
	} else {
		resp.Body.Close()
	}
	// The 5th waited accepted, the listener's own.
	if _, _, most := l.counts(); most > 5 {
		t.Errorf("%d connections open at once, want at most 4 and the one waiting", most)
	}
}

// Past MaxConns connections, an idle one is closed to make room for the
// next.
func TestServerClosesIdleForNext(t *testing.T) {
	addr, l := startServer(t, hits(), &metrics.ServerOptions{MaxConns: 2, IdleTimeout: time.Minute})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, _, err := scrapeOn(c, 5*time.Second); err != nil {
			t.Fatalf("scrape on connection %d: %v", len(conns), err)
		}
	}
	// Connection 1 or 2 (which one went idle first, which the client
	// cannot tell) was closed for 3 before 3 was served; the other
	// serves a scrape still.
	if accepted, open, most := l.counts(); accepted != 3 || open != 2 || most > 3 {
		t.Errorf("accepted %d, open %d, at most %d at once; want 3, 2, at most 3", accepted, open, most)
	}
	served := 0
	for _, c := range conns[:2] {
		if _, _, err := scrapeOn(c, 5*time.Second); err == nil {
			served++
		}
	}
	if served != 1 {
		t.Errorf("scrapes on connections 1 and 2 served: %d, want 1", served)
	}
}

// A connection that finds MaxConns open, none idle, waits for one to go
// idle, which is then closed for it.
func TestServerClosesIdleForWaiting(t *testing.T) {
	release := make(chan struct{})
	e := metrics.New(&metrics.Options{Collect: func(time.Time) ([]aggregate.Record, error) {
		<-release
		return nil, nil
	}})
	addr, _ := startServer(t, e, &metrics.ServerOptions{MaxConns: 2, IdleTimeout: time.Minute})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	// The two served are active, collecting, until now.
	time.Sleep(100 * time.Millisecond)
	close(release)
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("scrape on connection %d: %v", i+1, err)
		}
		resp.Body.Close()
	}
}

// Many clients that scrape and then stay idle hold at most MaxConns
// connections at once; each is served in turn, and closed.
func TestServerManyIdle(t *testing.T) {
	const clients, maxConns = 128, 8
	addr, l := startServer(t, hits(), &metrics.ServerOptions{MaxConns: maxConns, IdleTimeout: 50 * time.Millisecond})
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			if _, _, err := scrapeOn(c, 30*time.Second); err != nil {
				errs <- err
				return
			}
			errs <- closedWithin(c, 10*time.Second)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	accepted, open, most := l.counts()
	if accepted != clients || open != 0 || most > maxConns+1 {
		t.Errorf("accepted %d, open %d, at most %d at once; want %d, 0, at most %d and one waiting", accepted, open, most, clients, maxConns)
	}
}

// syncBuffer is a log's output read by the test while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A scrape that fails is logged and answered 500, without a stack
// trace.
func TestServerScrapeError(t *testing.T) {
	var logged syncBuffer
	e := metrics.New(&metrics.Options{Collect: func(time.Time) ([]aggregate.Record, error) {
		var recs []aggregate.Record
		return recs[:1], nil
	}})
	addr, _ := startServer(t, e, &metrics.ServerOptions{ErrorLog: log.New(&logged, "tool: ", 0)})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, body, err := scrapeOn(c, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	const msg = "metrics: collect: panic: runtime error: slice bounds out of range"
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, msg) || strings.Contains(body, ".go:") {
		t.Errorf("scrape = %s %q, want 500 with %q and no stack trace", resp.Status, body, msg)
	}
	if got := logged.String(); !strings.HasPrefix(got, "tool: error gathering metrics:") || !strings.Contains(got, msg) {
		t.Errorf("log = %q, want the error, prefixed", got)
	}
}

func TestNewServerLabels(t *testing.T) {
	le := aggregate.Key{Kind: aggregate.KeyField, Field: "le"}
	keyLe := aggregate.Key{Kind: aggregate.KeyField, Field: "key_le"}
	const msg = "keys le and key_le would both be label key_le"
	if _, err := metrics.NewServer(metrics.New(&metrics.Options{By: []aggregate.Key{le, keyLe}}), nil); err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("NewServer = %v, want an error that says %q", err, msg)
	}
}
