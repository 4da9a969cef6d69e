package api

import (
	"context"
	"net/url"

	"github.com/memex-archive/memex/memory"
)

// The Client is the Memory of a running server too: one GET each.

var _ Memory = (*Client)(nil)

func (c *Client) Handoff(ctx context.Context, req HandoffRequest) (memory.Capsule, error) {
	q := setIf(url.Values{}, "project", req.Project, "exclude", req.Exclude, "checkout", req.Checkout, "budget", nonZero(req.Budget))
	var res memory.Capsule
	err := c.GetJSON(ctx, "/v1/handoff", q, &res)
	return res, err
}

func (c *Client) Stale(ctx context.Context, req StaleRequest) (memory.StaleResult, error) {
	q := setIf(url.Values{}, "project", req.Project, "checkout", req.Checkout, "limit", nonZero(req.Limit))
	var res memory.StaleResult
	err := c.GetJSON(ctx, "/v1/stale", q, &res)
	return res, err
}

func (c *Client) Procedures(ctx context.Context, req ProceduresRequest) (memory.ProceduresResult, error) {
	var res memory.ProceduresResult
	err := c.GetJSON(ctx, "/v1/procedures", setIf(url.Values{}, "project", req.Project, "family", req.Family), &res)
	return res, err
}

func (c *Client) Hint(ctx context.Context, req HintRequest) (string, error) {
	var res struct{ Text string }
	err := c.GetJSON(ctx, "/v1/hint", setIf(url.Values{"ref": {req.Ref}}, "project", req.Project), &res)
	return res.Text, err
}

func (c *Client) Lessons(ctx context.Context, req LessonsRequest) ([]memory.LessonItem, error) {
	q := setIf(url.Values{}, "project", req.Project, "session", req.Session, "status", req.Status, "limit", nonZero(req.Limit))
	res := []memory.LessonItem{}
	err := c.GetJSON(ctx, "/v1/lessons", q, &res)
	return res, err
}

func (c *Client) Distill(ctx context.Context, req DistillRequest) (memory.UpdateReport, error) {
	var res memory.UpdateReport
	err := c.PostJSON(ctx, "/v1/distill", req, &res)
	return res, err
}
