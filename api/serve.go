package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Server limits for Serve.
const (
	MaxHeaderBytes    = 64 << 10
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a whole request, body included: a client
	// trickling a body cannot hold a connection for longer.
	ReadTimeout = 5 * time.Minute
	IdleTimeout = 2 * time.Minute
	// ShutdownTimeout bounds how long Serve waits for in-flight requests
	// after ctx is done; long-lived MCP streams are cut after it.
	ShutdownTimeout = 30 * time.Second
)

// IsLoopback reports whether addr (host:port) binds only loopback: an
// empty host or an unspecified address (0.0.0.0, ::) binds every interface
// and is not loopback; "localhost" is.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DialAddr is the address clients on this machine dial to reach a
// listener at a: loopback for a listener on every interface.
func DialAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
}

// HostsOf are the Host names (Options.Hosts) a server listening at addr
// answers besides loopback ones: allow, and the host of addr when it names
// one (not an unspecified address).
func HostsOf(addr string, allow []string) []string {
	hosts := append([]string(nil), allow...)
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// Serve serves the handler on ln until ctx is done, then stops accepting,
// waits up to ShutdownTimeout for in-flight requests (an add that is being
// written completes and is acknowledged), and returns. It returns nil after
// a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.http,
		MaxHeaderBytes:    MaxHeaderBytes,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		// Requests keep running when ctx is cancelled: shutdown is
		// graceful, not an abort of the writes in flight.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.closeOnce.Do(func() { close(s.stopping) })
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
