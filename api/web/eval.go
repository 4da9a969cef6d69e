package web

import "net/http"

type evalData struct {
	Runs        []EvalRun
	Unavailable bool
}

// handleEval shows the saved runs of memex eval budget with their plots,
// newest first.
func (v *Viewer) handleEval(w http.ResponseWriter, r *http.Request) {
	var d evalData
	if v.opts.Evals == nil {
		d.Unavailable = true
	} else {
		runs, err := v.opts.Evals.EvalRuns(r.Context())
		if err != nil {
			v.fail(w, r, err)
			return
		}
		d.Runs = runs
	}
	v.render(w, r, http.StatusOK, "eval", "Eval", d)
}
