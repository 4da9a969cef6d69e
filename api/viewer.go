package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The viewer (Options.Viewer, package api/web) answers every path that is
// not /healthz, /v1 or /mcp, behind the same guard (guard.go) and the same
// token. A browser cannot send a bearer header when it follows a link, so
// on the viewer's routes the token may also come as a cookie, set by
// POST LoginPath (the form a request without it is shown) or by a link
// that carries ?token=TOKEN once (it is taken out of the address at once).
// The cookie holds a value derived from the token, not the token: it opens
// the viewer's pages, which only read, and never /v1 or /mcp, so a page of
// another site that makes the browser send it can change nothing (the
// guard refuses its Origin anyway).

// LoginPath is where the viewer's sign-in form posts the token.
const LoginPath = "/_login"

// viewerCookie names the cookie that carries the viewer's credential.
const viewerCookie = "memex_viewer"

// viewerSecret is what the cookie holds for token: an HMAC of a fixed
// label under the token, so that the cookie is not the API's token.
func viewerSecret(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("memex viewer cookie v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// viewerAuth requires, when a token is set, the bearer header, the
// viewer's cookie or ?token=; a browser without any gets the sign-in form.
func (s *Server) viewerAuth(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	bearer := []byte("Bearer " + s.opts.Token)
	secret := []byte(viewerSecret(s.opts.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), bearer) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(viewerCookie); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), secret) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet {
			if subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1 {
				s.setViewerCookie(w, r)
				u := *r.URL
				q := u.Query()
				q.Del("token")
				u.RawQuery = q.Encode()
				http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
				return
			}
		}
		loginPage(w, r.URL.RequestURI(), r.URL.Query().Has("token"))
	})
}

func (s *Server) setViewerCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: viewerCookie, Value: viewerSecret(s.opts.Token), Path: "/",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode, MaxAge: int((30 * 24 * time.Hour).Seconds())})
}

// handleLogin checks the token of the sign-in form and, when it is the
// server's, sets the cookie and sends the browser back where it was.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	next := r.PostFormValue("next")
	if u, err := url.Parse(next); err != nil || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || u.Host != "" {
		next = "/"
	}
	if s.opts.Token != "" && subtle.ConstantTimeCompare([]byte(r.PostFormValue("token")), []byte(s.opts.Token)) != 1 {
		loginPage(w, next, true)
		return
	}
	if s.opts.Token != "" {
		s.setViewerCookie(w, r)
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// loginTemplate is self-contained (no script, no asset) so that it needs
// nothing the token guards.
var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>memex: sign in</title>
<style>body{font:15px system-ui,sans-serif;max-width:28em;margin:4em auto;padding:0 1em}input{font:inherit;padding:.3em;width:100%;box-sizing:border-box}button{font:inherit;margin-top:.6em;padding:.3em 1em}.bad{color:#b00}</style>
</head><body>
<h1>memex</h1>
<p>This server requires its bearer token (<code>memex serve</code> named the file that holds it; by default <code>$MEMEX_HOME/token</code>).</p>
{{if .Wrong}}<p class="bad" id="wrong">That is not this server's token.</p>{{end}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="next" value="{{.Next}}">
<label>Token <input type="password" name="token" autocomplete="current-password" autofocus></label>
<button type="submit">Sign in</button>
</form>
</body></html>
`))

func loginPage(w http.ResponseWriter, next string, wrong bool) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_ = loginTemplate.Execute(w, struct {
		Action, Next string
		Wrong        bool
	}{LoginPath, next, wrong})
}
