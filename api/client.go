package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// Client talks to a memex server: what memex's own commands use while
// `memex serve` owns the store. Its errors are *memex.Error rebuilt from
// the server's answer with the table the server encoded them with
// (errorTable), so that they match the same sentinels and read the same
// as the local path's; an error of transport (no answer) is not a
// *memex.Error (see Answered).
type Client struct {
	// Base is the server's URL, http://host:port.
	Base string
	// Token is the bearer token, "" for none.
	Token string
	// Key is the owner's key (serve.key), "" for none.
	Key string
	// HTTP is the client used; nil means http.DefaultClient.
	HTTP *http.Client
}

// Answered reports whether err is the server's answer (as opposed to an
// error of transport: the server went away, or never answered).
func Answered(err error) bool {
	var me *memex.Error
	return errors.As(err, &me)
}

// Healthy reports whether a memex server answers /healthz within d, and
// the version it says it runs ("" when its answer names none). It asks
// without the token and the key, which /healthz does not need: the
// address may be a killed server's, and another process may listen there
// now; only memex's answer ({"ok":true}) is taken for a memex server.
// A Client that holds its home's key takes only the server of that key:
// one whose "id" is not KeyID(Key) is another home's server, that took
// the address since (an answer without an id, an older server's, is
// taken).
func (c *Client) Healthy(ctx context.Context, d time.Duration) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	bare := &Client{Base: c.Base, HTTP: c.HTTP}
	resp, err := bare.Do(ctx, "GET", "/healthz", nil, nil, "")
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var hz struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
		ID      string `json:"id"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&hz) != nil || !hz.OK {
		return "", false
	}
	if c.Key != "" && hz.ID != "" && hz.ID != KeyID(c.Key) {
		return "", false
	}
	return hz.Version, true
}

// KeyID names the server that holds key without telling the key: what
// /healthz answers as "id", which a client compares with its own key's.
func KeyID(key string) string {
	sum := sha256.Sum256([]byte("memex serve id\x00" + key))
	return hex.EncodeToString(sum[:8])
}

// Do sends a request; a non-2xx answer is returned as a *memex.Error. The
// caller closes the response's body.
func (c *Client) Do(ctx context.Context, method, path string, q url.Values, body io.Reader, ctype string) (*http.Response, error) {
	u := c.Base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.Key != "" {
		req.Header.Set(KeyHeader, c.Key)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The server went away (stopped, killed) or never answered: say
		// so, rather than Go's `Post "http://...": EOF`.
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return nil, &noAnswer{fmt.Sprintf("the memex server at %s did not answer %s %s (%v): stopped or killed? What it finished is kept; run the command again, which opens the store itself when no server runs",
			strings.TrimPrefix(c.Base, "http://"), method, path, cause), err}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return nil, DecodeError(resp.StatusCode, b, fmt.Sprintf("server %s: %s %s", c.Base, method, path))
}

// DecodeError rebuilds the error of an error answer: a *memex.Error of the
// class its code names. where names the request, for an answer that is
// not memex's error JSON.
func DecodeError(status int, body []byte, where string) error {
	var eb ErrorBody
	if json.Unmarshal(body, &eb) != nil || eb.Error.Message == "" {
		return &memex.Error{Kind: kindOfStatus(status), What: where + ": " + http.StatusText(status)}
	}
	return &memex.Error{Kind: KindOf(eb.Error.Code), What: eb.Error.Message, Hint: eb.Error.Hint}
}

// PostJSON posts in as JSON to path and decodes the answer into out
// (dropped when out is nil).
func (c *Client) PostJSON(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	resp, err := c.Do(ctx, "POST", path, nil, bytes.NewReader(b), "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s through %s: %w", strings.TrimPrefix(path, "/v1/"), c.Base, err)
	}
	return nil
}

// GetJSON gets path and decodes the answer into v.
func (c *Client) GetJSON(ctx context.Context, path string, q url.Values, v any) error {
	resp, err := c.Do(ctx, "GET", path, q, nil, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s through %s: %w", strings.TrimPrefix(path, "/v1/"), c.Base, err)
	}
	return nil
}

// noAnswer is a request the server did not answer; it wraps the
// transport's error.
type noAnswer struct {
	msg string
	err error
}

func (e *noAnswer) Error() string { return e.msg }
func (e *noAnswer) Unwrap() error { return e.err }
