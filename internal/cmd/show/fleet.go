package show

import (
	"context"
	"fmt"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/tidwall/gjson"
)

// FleetResult is the JSON document of `show` over several gateways: the
// session as each host that has it shows it (each with its "context"), and
// the hosts that failed. A host without the session is neither.
type FleetResult struct {
	Sessions []*Result           `json:"sessions"`
	Count    int                 `json:"count"`
	Errors   []backend.HostError `json:"errors"`
}

// runFleet asks every host concurrently for the session (the same lookup
// and transcript read as one gateway) and prints what each one has. No
// host has it: exit 4 (exit 1 when a host failed, as it might have had
// it); a host failing beside others that answered: their sessions are
// printed, the failure is in "errors" and on stderr, exit 1.
func runFleet(o *Options, readers []backend.Reader) error {
	f := o.f
	ctx := context.Background()
	found, errs := backend.Each(readers, func(r backend.Reader) (*Result, error) { return showRemote(ctx, o, r) })
	out := &FleetResult{Sessions: []*Result{}, Errors: []backend.HostError{}}
	for i, r := range readers {
		switch {
		case errs[i] == nil:
			found[i].Context = r.Where()
			out.Sessions = append(out.Sessions, found[i])
		case apperr.CodeOf(errs[i]) == apperr.CodeNotFound:
			// not on this host (an ambiguous prefix is a failure, exit 1)
		default:
			out.Errors = append(out.Errors, backend.HostError{Context: r.Where(), Error: errs[i].Error(), Err: errs[i]})
		}
	}
	out.Count = len(out.Sessions)
	if out.Count == 0 && len(out.Errors) == 0 {
		return apperr.NotFoundf("session %s not found on any of the %d gateways asked", o.describe(), len(readers))
	}
	if err := o.printFleet(out); err != nil {
		return err
	}
	return cmdutil.ReportHostErrors(f, out.Errors)
}

// showRemote is one host's answer, as `show` over that one gateway.
func showRemote(ctx context.Context, o *Options, r backend.Reader) (*Result, error) {
	tr, ok := r.(backend.Transcripts)
	if !ok {
		return nil, apperr.Statef("%s cannot read transcripts", r.Where())
	}
	sess, err := tr.Session(ctx, o.Ref, o.Label)
	if err != nil {
		return nil, err
	}
	page, err := tr.History(ctx, sess, backend.HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	return counted(buildRemote(o, sess, page, r.Where()), page), nil
}

func (o *Options) describe() string {
	if o.Label != "" {
		return "with label " + o.Label
	}
	return o.Ref
}

// printFleet: JSON the document; piped its "field<TAB>value" lines
// (sessions.0.context, sessions.0.key, …, errors.0.context); on a terminal
// each host's session as `show` prints one, under its context's name.
func (o *Options) printFleet(out *FleetResult) error {
	f := o.f
	if f.JSONMode() {
		return f.PrintJSON(out)
	}
	if !f.IO.IsStdoutTTY() {
		doc, err := marshal(out)
		if err != nil {
			return err
		}
		var b strings.Builder
		Flatten(gjson.ParseBytes(doc), "", func(path, value string) {
			b.WriteString(path + "\t" + value + "\n")
		})
		_, err = fmt.Fprint(f.IO.Out, b.String())
		return err
	}
	now := f.Now()
	for i, res := range out.Sessions {
		if i > 0 {
			fmt.Fprintln(f.IO.Out)
		}
		fmt.Fprintf(f.IO.Out, "== context %s\n", res.Context)
		if err := printTTY(f, res, now); err != nil {
			return err
		}
	}
	return nil
}
