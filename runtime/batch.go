package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/talonhq/talon/tool"
)

// MaxBatchConcurrency is how many calls of one batch run at once.
const MaxBatchConcurrency = 8

// BatchResult is the outcome of one call of a batch: a result, or a hard
// error for that call alone.
type BatchResult struct {
	Result tool.Result
	Err    error
}

// CallBatch runs several calls as one step of an agent. Every call is
// prepared, decided and (where policy asks) approved first, one after the
// other in input order, so a person sees the prompts in the order the model
// asked; then the authorized calls run, at most [MaxBatchConcurrency] at a
// time. Results come back in input order. A hard error in one call does not
// stop the others.
func (r *Runtime) CallBatch(ctx context.Context, calls []tool.Call) []BatchResult {
	st := r.state.Load()
	out := make([]BatchResult, len(calls))
	type job struct {
		i   int
		ctx context.Context
		p   *prepared
	}
	var jobs []job
	start := time.Now()
	for i, c := range calls {
		octx := r.observe(ctx, c.Name)
		p, early, err := r.prepare(octx, st, c)
		switch {
		case err != nil:
			out[i].Err = err
			r.observeError(octx, c, start)
			continue
		case early != nil:
			out[i].Result = *early
			r.record(octx, c, nil, *early, nil, start)
			continue
		}
		cctx, allowed, res := r.authorize(octx, st, p)
		if !allowed {
			out[i] = BatchResult{Result: res, Err: ctx.Err()}
			r.record(octx, c, p, res, ctx.Err(), start)
			continue
		}
		jobs = append(jobs, job{i: i, ctx: cctx, p: p})
	}
	sem := make(chan struct{}, MaxBatchConcurrency)
	var wg sync.WaitGroup
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := r.execute(j.ctx, j.p)
			out[j.i] = BatchResult{Result: res, Err: err}
			r.record(j.ctx, j.p.call, j.p, res, err, start)
		}()
	}
	wg.Wait()
	return out
}
