package metrics

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ServerOptions bound what the clients of a Server may hold; a field
// left zero takes its default.
type ServerOptions struct {
	// MaxConns is the most connections served at once (default 16).
	// When they are all open, the one idle the longest is closed to
	// make room for the next; when none is idle, the next waits, and
	// those after it wait unaccepted, until one is closed.
	MaxConns int
	// ReadTimeout bounds the reading of a request from its first byte,
	// or from the connection's opening (default 10s).
	ReadTimeout time.Duration
	// WriteTimeout bounds the time from the end of a request's header
	// to the end of its response, the collection included (default 1m).
	WriteTimeout time.Duration
	// IdleTimeout is how long a connection waits for its next request
	// before it is closed (default 30s).
	IdleTimeout time.Duration
	// ErrorLog logs the errors of scrapes and connections (the log
	// package's standard logger if nil).
	ErrorLog *log.Logger
}

const (
	defaultMaxConns     = 16
	defaultReadTimeout  = 10 * time.Second
	defaultWriteTimeout = time.Minute
	defaultIdleTimeout  = 30 * time.Second
	// maxHeaderBytes is room for a scrape's header, which keeps the
	// memory a connection can take small.
	maxHeaderBytes = 16 << 10
)

// A Server serves the metrics of an Exporter on /metrics over HTTP, in
// the Prometheus text format or OpenMetrics for a client that asks for
// it. A scrape that fails is answered with status 500 and the error,
// which is logged too; no stack trace is written to a client.
type Server struct {
	srv   http.Server
	slots chan struct{} // one per connection served
	idled chan struct{} // a connection went idle

	mu   sync.Mutex
	idle map[net.Conn]time.Time // since when each idle connection is
}

// NewServer returns a Server of the metrics of e, with the options given
// (the defaults for nil). The error is that of the labels of e (see
// LabelNames).
func NewServer(e *Exporter, opts *ServerOptions) (*Server, error) {
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxConns <= 0 {
		o.MaxConns = defaultMaxConns
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = defaultReadTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = defaultWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = defaultIdleTimeout
	}
	if o.ErrorLog == nil {
		o.ErrorLog = log.Default()
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:          o.ErrorLog,
		ErrorHandling:     promhttp.HTTPErrorOnError,
		EnableOpenMetrics: true,
	}))
	s := &Server{
		srv: http.Server{
			Handler:           mux,
			ReadHeaderTimeout: o.ReadTimeout,
			ReadTimeout:       o.ReadTimeout,
			WriteTimeout:      o.WriteTimeout,
			IdleTimeout:       o.IdleTimeout,
			MaxHeaderBytes:    maxHeaderBytes,
			ErrorLog:          o.ErrorLog,
		},
		slots: make(chan struct{}, o.MaxConns),
		idled: make(chan struct{}, 1),
		idle:  make(map[net.Conn]time.Time),
	}
	s.srv.ConnState = s.track
	return s, nil
}

// Serve accepts the connections of ln and serves them until Shutdown or
// Close, when it returns http.ErrServerClosed. A connection that finds
// ServerOptions.MaxConns open closes the one idle the longest, or waits
// for one to close or go idle, and those behind it wait in the kernel's
// queue, which costs this process nothing.
func (s *Server) Serve(ln net.Listener) error {
	return s.srv.Serve(&limited{Listener: ln, s: s, done: make(chan struct{})})
}

// Shutdown stops accepting connections, closes those that are idle, and
// waits for the others to be, or for ctx to be done; see
// http.Server.Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.srv.Shutdown(ctx)
}

// Close closes the listener and every connection at once.
func (s *Server) Close() error {
	return s.srv.Close()
}

// track keeps the idle connections, which closeIdle chooses from.
func (s *Server) track(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if state != http.StateIdle {
		delete(s.idle, c)
		return
	}
	s.idle[c] = time.Now()
	select {
	case s.idled <- struct{}{}:
	default:
	}
}

// closeIdle closes the connection idle the longest and reports whether
// there was one. An idle scraper loses little, as it connects again at
// its next scrape; a client that held connections idle would otherwise
// keep the others out for IdleTimeout.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for c, t := range s.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	delete(s.idle, oldest)
	s.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// limited is a listener of a Server that holds a slot of it for each
// connection it returns, until the connection is closed.
type limited struct {
	net.Listener
	s         *Server
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limited) Accept() (net.Conn, error) {
	// Accepted first, so that a connection is closed only for one that
	// waits.
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.s.slots <- struct{}{}:
			return &limitedConn{Conn: c, free: func() { <-l.s.slots }}, nil
		default:
		}
		if l.s.closeIdle() {
			continue // its Close freed a slot
		}
		select {
		case l.s.slots <- struct{}{}:
			return &limitedConn{Conn: c, free: func() { <-l.s.slots }}, nil
		case <-l.s.idled:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// Close closes ln, and ends an Accept waiting for a slot.
func (l *limited) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitedConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
