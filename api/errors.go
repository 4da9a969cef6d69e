package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/memex-archive/memex"
)

// errUnauthorized is a missing or wrong bearer token.
var errUnauthorized = errors.New("missing or wrong bearer token")

// errorTable maps error classes to an HTTP status and a stable code, in one
// place. The first match wins; anything else is 500 "internal".
var errorTable = []struct {
	err    error
	status int
	code   string
}{
	{memex.ErrNotFound, http.StatusNotFound, "not_found"},
	{memex.ErrInvalid, http.StatusBadRequest, "invalid"},
	{memex.ErrAmbiguous, http.StatusBadRequest, "ambiguous"},
	{memex.ErrBudgetTooSmall, http.StatusUnprocessableEntity, "budget_too_small"},
	{memex.ErrBusy, http.StatusServiceUnavailable, "busy"},
	{memex.ErrDiskFull, http.StatusInsufficientStorage, "disk_full"},
	{memex.ErrCorrupt, http.StatusInternalServerError, "corrupt"},
	{memex.ErrSchema, http.StatusInternalServerError, "schema"},
	{errUnauthorized, http.StatusUnauthorized, "unauthorized"},
	{errForbidden, http.StatusForbidden, "forbidden"},
	{errUnsupportedType, http.StatusUnsupportedMediaType, "unsupported_media_type"},
	{errNotImplemented, http.StatusNotImplemented, "not_implemented"},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout"},
	{context.Canceled, 499, "canceled"},
}

// KindOf is the class of error a code names (the sentinel errorTable maps
// to it), or nil for a code of none: what Client decodes an answer to.
func KindOf(code string) error {
	for _, e := range errorTable {
		if e.code == code {
			return e.err
		}
	}
	if code == "too_large" {
		return memex.ErrInvalid
	}
	return nil
}

// kindOfStatus is the class of an error answer without memex's JSON: the
// one class errorTable gives that status, or nil when it gives it none or
// several (a bare 500 from a proxy is not a corrupt store).
func kindOfStatus(status int) error {
	var kind error
	for _, e := range errorTable {
		if e.status == status {
			if kind != nil {
				return nil
			}
			kind = e.err
		}
	}
	return kind
}

// Status is the HTTP status the API answers err with: what the viewer's
// error pages use too.
func Status(err error) int {
	status, _ := classify(err)
	return status
}

// Code is the code the HTTP API answers err with ("not_found", "invalid",
// ..., "internal"): the code memex's --json errors carry too.
func Code(err error) string {
	_, code := classify(err)
	return code
}

// classify returns the status and code of err.
func classify(err error) (int, string) {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return http.StatusRequestEntityTooLarge, "too_large"
	}
	for _, e := range errorTable {
		if errors.Is(err, e.err) {
			return e.status, e.code
		}
	}
	return http.StatusInternalServerError, "internal"
}

// ErrorBody is the JSON of every error response.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Hint    string `json:"hint,omitempty"`
	} `json:"error"`
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, code := classify(err)
	if status >= 500 && status != http.StatusServiceUnavailable && status != http.StatusNotImplemented {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="memex"`)
	}
	writeJSON(w, status, encodeError(err, code))
}

// encodeError is err's answer: an error that carries its sentence (a
// *memex.Error in its chain) sends its What and Hint, what memex.Sentence
// reads, for the client to rebuild the same Error; any other, its text.
func encodeError(err error, code string) ErrorBody {
	var body ErrorBody
	body.Error.Code = code
	body.Error.Message = err.Error()
	var me *memex.Error
	if errors.As(err, &me) {
		body.Error.Message, body.Error.Hint = me.What, me.Hint
	}
	return body
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
