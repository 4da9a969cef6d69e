package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// viewerStub answers with the path it was asked, as a viewer would render
// a page.
var viewerStub = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.WriteString(w, "viewer "+r.URL.Path)
})

func TestViewerIsMountedBehindTheGuard(t *testing.T) {
	s, _ := newTestServer(t, "", Options{Viewer: viewerStub})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, c := range []struct {
		path   string
		hdr    []string
		status int
		body   string
	}{
		{"/", nil, 200, "viewer /"},
		{"/e/01JD8X3N6Q4W0G2Y7T5R9KZC1M", nil, 200, "viewer /e/01JD8X3N6Q4W0G2Y7T5R9KZC1M"},
		{"/healthz", nil, 200, `"ok":true`},
		{"/v1/nothing", nil, 404, `"not_found"`},
		{"/", []string{"Host", "attacker.example"}, 403, "forbidden"},
		{"/", []string{"Origin", "http://evil.example"}, 403, "forbidden"},
	} {
		status, body := send(t, srv, "GET", c.path, "", c.hdr...)
		if status != c.status || !strings.Contains(body, c.body) {
			t.Errorf("GET %s %v: %d %q, want %d with %q", c.path, c.hdr, status, body, c.status, c.body)
		}
	}
}

func TestViewerWithoutOneIsNotFound(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	if status, body := send(t, srv, "GET", "/", ""); status != 404 || !strings.Contains(body, "not_found") {
		t.Fatalf("GET / without a viewer: %d %s", status, body)
	}
}

func TestViewerSignIn(t *testing.T) {
	s, _ := newTestServer(t, "", Options{Viewer: viewerStub, Token: "s3cret"})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(req *http.Request) (*http.Response, string) {
		t.Helper()
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	get := func(path string, cookie *http.Cookie) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		return do(req)
	}

	resp, body := get("/sessions", nil)
	if resp.StatusCode != 401 || !strings.Contains(body, `action="/_login"`) || !strings.Contains(body, `value="/sessions"`) || strings.Contains(body, "viewer") {
		t.Fatalf("no token: %d %s", resp.StatusCode, body)
	}
	if resp, body = get("/?token=wrong", nil); resp.StatusCode != 401 || !strings.Contains(body, "not this server") {
		t.Fatalf("wrong token: %d %s", resp.StatusCode, body)
	}

	// A link with the token sets the cookie and drops the token from the
	// address.
	resp, _ = get("/s/x?token=s3cret&page=2", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/s/x?page=2" {
		t.Fatalf("token link: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == viewerCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || strings.Contains(cookie.Value, "s3cret") {
		t.Fatalf("cookie %+v", cookie)
	}
	if resp, body = get("/s/x", cookie); resp.StatusCode != 200 || body != "viewer /s/x" {
		t.Fatalf("with the cookie: %d %s", resp.StatusCode, body)
	}
	// The cookie opens the viewer only, never the API.
	if resp, _ = get("/v1/stats", cookie); resp.StatusCode != 401 {
		t.Fatalf("/v1 with the viewer's cookie: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	if resp, body = do(req); resp.StatusCode != 200 || body != "viewer /" {
		t.Fatalf("bearer: %d %s", resp.StatusCode, body)
	}

	login := func(token, next string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+LoginPath, strings.NewReader(url.Values{"token": {token}, "next": {next}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, _ := do(req)
		return resp
	}
	if resp = login("s3cret", "/search?q=x"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/search?q=x" || len(resp.Cookies()) != 1 {
		t.Fatalf("login: %d to %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	if resp = login("s3cret", "//evil.example/x"); resp.Header.Get("Location") != "/" {
		t.Fatalf("login sent the browser off the server: %q", resp.Header.Get("Location"))
	}
	if resp = login("nope", "/"); resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Fatalf("login with a wrong token: %d %v", resp.StatusCode, resp.Cookies())
	}
}
