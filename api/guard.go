package api

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex"
)

// A server on loopback is reachable by every web page the user opens: a
// page cannot read a cross-origin answer, but it can send requests, and a
// DNS-rebinding page can even read them, under a Host name of its own. So
// every route:
//
//   - accepts only a Host that is a loopback name or address (localhost,
//     *.localhost, 127.0.0.0/8, ::1) or one of Options.Hosts;
//   - refuses a request whose Origin is not such a host (a page of another
//     site; "null" included); a request without Origin (curl, memex itself,
//     MCP clients) is not a browser's cross-origin request;
//   - reads JSON only when the request says application/json: a browser
//     sends that type cross-origin only after a preflight, which this
//     server never grants.
//
// POST /v1/ingest reads only regular files under Options.IngestRoots,
// unless the request carries the owner's key (Options.Key, which only a
// process that can read $MEMEX_HOME has).

var errForbidden = errors.New("forbidden")

// errUnsupportedType is a JSON route called without application/json.
var errUnsupportedType = errors.New("unsupported media type")

// KeyHeader carries Options.Key.
const KeyHeader = "X-Memex-Key"

// guard refuses foreign hosts and origins (see above).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowedHost(r.Host) {
			s.writeError(w, r, fmt.Errorf("host %q is not this server's (loopback names only, or serve --allow-host): %w", r.Host, errForbidden))
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !s.allowedHost(u.Host) {
				s.writeError(w, r, fmt.Errorf("origin %q may not call this server: %w", o, errForbidden))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether hostport names this server.
func (s *Server) allowedHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return false
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range s.opts.Hosts {
		if strings.EqualFold(strings.Trim(h, "[]"), host) {
			return true
		}
	}
	return false
}

// needJSON fails unless r says its body is JSON.
func needJSON(r *http.Request) error {
	if isJSON(r) {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "none"
	}
	return fmt.Errorf("%s %s reads JSON: send Content-Type: application/json (got %s): %w", r.Method, r.URL.Path, ct, errUnsupportedType)
}

// owner reports whether r carries the owner's key.
func (s *Server) owner(r *http.Request) bool {
	k := r.Header.Get(KeyHeader)
	return s.opts.Key != "" && k != "" && subtle.ConstantTimeCompare([]byte(k), []byte(s.opts.Key)) == 1
}

// checkIngestPaths refuses, unless the caller is the owner, a path that is
// not under an ingest root once its links are followed, and anything but a
// regular file or a directory. Files found under a directory are read by
// ingest, which reads regular files only.
func (s *Server) checkIngestPaths(r *http.Request, paths []string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("ingest: path %q: want an absolute path on the server's machine: %w", p, memex.ErrInvalid)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // reported by ingest as a path that yields nothing
			}
			return fmt.Errorf("ingest: %s: %w", p, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return fmt.Errorf("ingest: %s: %w", p, err)
		}
		if !fi.Mode().IsRegular() && !fi.IsDir() {
			return fmt.Errorf("ingest: %s is not a regular file or a directory: %w", p, memex.ErrInvalid)
		}
		if s.owner(r) || s.underRoot(real) {
			continue
		}
		return fmt.Errorf("ingest: %s is outside the directories this server imports from (the hosts' default locations and serve --ingest-root): %w", p, errForbidden)
	}
	return nil
}

func (s *Server) underRoot(real string) bool {
	for _, root := range s.opts.IngestRoots {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
