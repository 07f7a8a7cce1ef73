package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
)

// The table columns of the objects these commands print; -o json and yaml
// print every member.
var (
	runCols   = []string{"run_id", "kind", "status", "account_id", "created_at", "updated_at", "finished_at"}
	auditCols = []string{"time", "agent_id", "method", "operation", "decision", "status", "latency_ms", "error_code"}
	capCols   = []string{"namespace", "id", "version", "type", "level", "audit_status", "versions", "published_at"}
	awfCols   = []string{"run_id", "name", "version", "status", "created_at", "finished_at"}
)

// maxListed bounds what one list command gathers (--limit at most).
const maxListed = 100000

// timeWindow is --since and --until: a time (RFC 3339, or a date) or an age
// (90m, 2h, 7d) before now.
type timeWindow struct {
	since, until string
}

func (w *timeWindow) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&w.since, "since", "", what+" at or after this: RFC 3339 time, date (2026-11-27) or age (90m, 2h, 7d)")
	cmd.Flags().StringVar(&w.until, "until", "", what+" before this: RFC 3339 time, date or age")
}

func (w *timeWindow) parse(now time.Time) (since, until time.Time, err error) {
	if since, err = parseWhen("--since", w.since, now); err != nil {
		return
	}
	if until, err = parseWhen("--until", w.until, now); err != nil {
		return
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		err = fail(ExitInvalid, "--since %s is not before --until %s", w.since, w.until)
	}
	return
}

func parseWhen(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", v, time.Local); err == nil {
		return t, nil
	}
	age := v
	days := 0
	if n, ok := strings.CutSuffix(v, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil || d < 0 || d > 36500 {
			return time.Time{}, fail(ExitInvalid, "%s %q: days must be a whole number up to 36500", flag, v)
		}
		days, age = d, "0s"
	}
	d, err := time.ParseDuration(age)
	if err != nil || d < 0 {
		return time.Time{}, fail(ExitInvalid, "%s %q is not a time (2026-11-27T10:00:00Z, 2026-11-27) or an age (90m, 2h, 7d)", flag, v)
	}
	return now.Add(-d).AddDate(0, 0, -days), nil
}

// gather pages through a list until limit items are kept or the list ends.
// keep decides each item: kept or not, and whether nothing after it can be
// (a list newest first, past --since).
func gather[T any](limit int, page func(cursor string, n int) ([]T, string, error), keep func(T) (bool, bool)) ([]T, error) {
	if limit < 1 || limit > maxListed {
		return nil, fail(ExitInvalid, "--limit must be 1 to %d, got %d", maxListed, limit)
	}
	out := []T{}
	cursor := ""
	for {
		items, next, err := page(cursor, min(limit, 1000))
		if err != nil {
			return nil, serverError(err)
		}
		for _, it := range items {
			ok, stop := true, false
			if keep != nil {
				ok, stop = keep(it)
			}
			if stop {
				return out, nil
			}
			if ok {
				out = append(out, it)
				if len(out) == limit {
					return out, nil
				}
			}
		}
		if next == "" || next == cursor || len(items) == 0 {
			return out, nil
		}
		cursor = next
	}
}

// splitList reads a comma or repeated list flag's values.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// accountCmd completes a command that prints what the server answers an
// account: it adds -o, --url and --key, and runs run with the output
// format and the client made from them.
func accountCmd(io Stdio, cmd *cobra.Command, run func(cmd *cobra.Command, args []string, format string, c *client.Client) error) *cobra.Command {
	var acct accountFlags
	var output string
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, c, err := io.start(output, acct.client)
		if err != nil {
			return err
		}
		return run(cmd, args, format, c)
	}
	addOutputFlag(cmd, &output)
	acct.register(cmd)
	return cmd
}

func newRunsCmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, read, cancel and follow runs of every kind on a server (executions, capability runs, agent workflows)",
		Long: `Runs of every kind on the server at $SLUICE_URL, as the account of
$SLUICE_API_KEY (else $SLUICE_ADMIN_KEY): A2E executions (kind a2e), A2S
capability runs (a2s) and agent workflow runs (agent_workflow), through
/api/v1/runs.

  sluice runs list --status failed --since 24h
  sluice runs list --kind a2s,agent_workflow --status running,waiting
  sluice runs list --account '*' -o json          # an admin: every account's
  sluice runs get ID                               # the run and its detail
  sluice runs events ID -o json                    # its frames as a JSON array
  sluice runs tail ID                              # follow it live to its end
  sluice runs cancel ID`,
	}
	cmd.AddCommand(newRunsListCmd(io), newRunsGetCmd(io), newRunsCancelCmd(io), newRunsEventsCmd(io, false), newRunsEventsCmd(io, true))
	return cmd
}

func newRunsListCmd(io Stdio) *cobra.Command {
	var win timeWindow
	var kinds, status []string
	var account string
	var limit int
	cmd := accountCmd(io, &cobra.Command{
		Use:   "list [--status S,...] [--kind K,...] [--account ID|*] [--since T] [--until T] [--limit N]",
		Short: "List runs of every kind, newest first",
		Long: `List runs of every kind, newest first, as an array of run summaries
{run_id, kind, status, account_id, created_at, updated_at, finished_at}.
--status and --kind take comma lists; --account is an admin's (another
account's id, or * for all); --since and --until select by creation time.

Exit 0 with the list, 1 when the server refused, 2 for a bad flag (an
unknown status or kind is the server's 400, named).`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, _ []string, format string, c *client.Client) error {
		since, until, err := win.parse(time.Now())
		if err != nil {
			return err
		}
		q := client.RunsQuery{Kinds: splitList(kinds), Status: splitList(status), Account: account}
		list, err := gather(limit, func(cursor string, n int) ([]client.Run, string, error) {
			q.Cursor, q.Limit = cursor, n
			return c.Runs(cmd.Context(), q)
		}, func(r client.Run) (bool, bool) {
			// The list is newest first: past --since, nothing more is.
			if !since.IsZero() && r.CreatedAt.Before(since) {
				return false, true
			}
			return until.IsZero() || r.CreatedAt.Before(until), false
		})
		if err != nil {
			return err
		}
		return io.render(format, list, runCols...)
	})
	cmd.Flags().StringSliceVar(&status, "status", nil, "only runs of these statuses: queued, running, waiting, success, failed, partial, cancelled")
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only runs of these kinds: a2e, a2s, agent_workflow")
	cmd.Flags().StringVar(&account, "account", "", "an admin's: another account's runs (its id), or every account's (*)")
	cmd.Flags().IntVar(&limit, "limit", 50, "list at most this many")
	win.register(cmd, "runs created")
	return cmd
}

func newRunsGetCmd(io Stdio) *cobra.Command {
	return accountCmd(io, &cobra.Command{
		Use:   "get ID",
		Short: "Show a run of any kind and its detail",
		Long: `Show one run: its summary and, under detail, the run as its kind's own API
shows it (an execution's results and errors, a capability run's outputs and
pending task, an agent workflow's steps).

Exit 0 when the run succeeded or has not ended, 1 when it failed, partly
failed or was cancelled (or the server refused: 404 for an unknown id), 3
when it waits for a decision.`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, args []string, format string, c *client.Client) error {
		r, err := c.Run(cmd.Context(), args[0])
		if err != nil {
			return serverError(err)
		}
		if err := io.render(format, r, runCols...); err != nil {
			return err
		}
		return statusExit(r.Status)
	})
}

func newRunsCancelCmd(io Stdio) *cobra.Command {
	return accountCmd(io, &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a run of any kind that has not ended",
		Long: `Cancel a run that has not ended, whatever its kind, and print it
(status cancelled). Exit 0 when cancelled, 1 when the server refused (a run
already ended is 409, naming its status; an unknown id is 404).`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, args []string, format string, c *client.Client) error {
		r, err := c.CancelRun(cmd.Context(), args[0])
		if err != nil {
			return serverError(err)
		}
		return io.render(format, r, runCols...)
	})
}

// maxEvents bounds the frames `runs events` gathers into one list.
const maxEvents = 100000

// newRunsEventsCmd is `runs events` (the frames as a list) and, live,
// `runs tail` (each frame as it comes).
func newRunsEventsCmd(io Stdio, live bool) *cobra.Command {
	var after int64
	cmd := &cobra.Command{
		Use:   "events ID [--after N]",
		Short: "Print a run's frames (E2A response frames) as one list",
		Long: `Print a run's stored frames after --after (their sequence from 1): with
-o json an array of the E2A response frames as the stream sends them, as a
table a line per step. A run that has not ended is read to its end: use
sluice runs tail to watch it live.

Exit 0 when the run succeeded, 1 when it failed or the server refused, 3
when it waits for a decision.`,
		Args: cobra.ExactArgs(1),
	}
	if live {
		cmd.Use = "tail ID [--after N]"
		cmd.Short = "Follow a run live to its end: a line per step (the frames as NDJSON with -o json)"
		cmd.Long = `Follow a run's frames live until its final frame: a line per step started,
finished, retried or failed, or with -o json each E2A response frame as one
line of JSON (NDJSON). A capability run waiting for a decision keeps the
stream open until it is answered (sluice cap decide) or cancelled.

Exit 0 when the run succeeded, 1 when it failed, partly failed or was
cancelled (or the server refused), 3 when it waits for a decision.`
	}
	accountCmd(io, cmd, func(cmd *cobra.Command, args []string, format string, c *client.Client) error {
		if after < 0 {
			return fail(ExitInvalid, "--after must be 0 or more, got %d", after)
		}
		// A table is a line per step; -o json of tail, a line per frame;
		// otherwise the frames are gathered and printed as one list.
		p := newProgress(io.Out)
		gathered := format == outYAML || format == outJSON && !live
		frames := []json.RawMessage{}
		var final *streamEnd
		err := followFrames(cmd.Context(), c, args[0], after, func(fr client.Frame) error {
			if f := finalOf(fr.Data); f != nil {
				final = f
			}
			switch {
			case gathered:
				if len(frames) == maxEvents {
					return fail(ExitInvalid, "run %s has more than %d frames: read them in parts with --after", args[0], maxEvents)
				}
				frames = append(frames, fr.Data)
			case format == outJSON:
				return writeCompact(io, fr.Data)
			default:
				p.frame(fr.Data)
			}
			return nil
		})
		if err != nil {
			return serverError(err)
		}
		if gathered {
			if err := io.render(format, frames); err != nil {
				return err
			}
		}
		if final != nil {
			return statusExit(final.status()) // the record may be written a moment after it
		}
		r, err := c.Run(cmd.Context(), args[0])
		if err != nil {
			return serverError(err)
		}
		return statusExit(r.Status)
	})
	cmd.Flags().Int64Var(&after, "after", 0, "only the frames after this sequence number")
	return cmd
}

func newAuditCmd(io Stdio) *cobra.Command {
	var af adminFlags
	var win timeWindow
	var account, method, decision, output string
	var limit int
	cmd := &cobra.Command{
		Use:   "audit [--account ID] [--method M] [--decision allow|deny|limited] [--since T] [--until T] [--limit N]",
		Short: "Read the audit trail (admin), newest first",
		Long: `Read the server's audit trail (GET /api/v1/admin/audit) with the admin key:
one record per call {id, time, request_id, agent_id, method, operation,
decision, status, latency_ms, error_code, details}, newest first.

  sluice audit --since 1h --decision deny
  sluice audit --account agent-3b1e --method workflow.execute -o json

Exit 0 with the records, 1 when the server refused, 2 for a bad flag.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			since, until, err := win.parse(time.Now())
			if err != nil {
				return err
			}
			switch decision {
			case "", "allow", "deny", "limited":
			default:
				return fail(ExitInvalid, "--decision %q: it is allow, deny or limited", decision)
			}
			format, c, err := io.start(output, af.client)
			if err != nil {
				return err
			}
			q := client.AuditQuery{Account: account, Method: method, Decision: decision, Since: since, Until: until}
			list, err := gather(limit, func(cursor string, n int) ([]client.AuditRecord, string, error) {
				q.Cursor, q.Limit = cursor, n
				return c.Audit(cmd.Context(), q)
			}, nil)
			if err != nil {
				return err
			}
			return io.render(format, list, auditCols...)
		},
	}
	cmd.Flags().StringVar(&account, "account", "", "only this account's records (its id)")
	cmd.Flags().StringVar(&method, "method", "", "only this method's records, e.g. workflow.execute")
	cmd.Flags().StringVar(&decision, "decision", "", "only records of this decision: allow, deny or limited")
	cmd.Flags().IntVar(&limit, "limit", 100, "read at most this many")
	win.register(cmd, "records")
	addOutputFlag(cmd, &output)
	af.register(cmd)
	return cmd
}

func newCapListCmd(io Stdio) *cobra.Command {
	var namespace string
	var limit int
	cmd := accountCmd(io, &cobra.Command{
		Use:   "list [--namespace NS] [--limit N]",
		Short: "List the capabilities published on a server, each at its latest version",
		Long: `List the capabilities of the server's A2S registry (GET /api/v1/a2s/registry),
each at its latest version with its count of versions; --namespace lists one
namespace and those under it (core lists core and core/weather).

Exit 0 with the list, 1 when the server refused, 2 for a bad flag.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, _ []string, format string, c *client.Client) error {
		list, err := gather(limit, func(cursor string, n int) ([]client.CapabilityEntry, string, error) {
			return c.Capabilities(cmd.Context(), namespace, cursor, n)
		}, nil)
		if err != nil {
			return err
		}
		return io.render(format, list, capCols...)
	})
	cmd.Flags().StringVar(&namespace, "namespace", "", "only this namespace and those under it")
	cmd.Flags().IntVar(&limit, "limit", 1000, "list at most this many")
	return cmd
}

func newCapGetCmd(io Stdio) *cobra.Command {
	var version string
	cmd := accountCmd(io, &cobra.Command{
		Use:   "get NS/ID [--version CONSTRAINT]",
		Short: "Show a published capability and its document",
		Long: `Show one capability of the server's registry with its document: the
highest version meeting --version (an npm-style constraint: ^1.0.0, ~1.4,
1.4.2; default the latest). An ID without a namespace is in "default".

Exit 0 with the entry, 1 when the server refused (404 lists the versions
there are), 2 for a bad flag.`,
		Args: cobra.ExactArgs(1),
	}, func(cmd *cobra.Command, args []string, format string, c *client.Client) error {
		e, err := c.Capability(cmd.Context(), args[0], version)
		if err != nil {
			return serverError(err)
		}
		return io.render(format, e, capCols...)
	})
	cmd.Flags().StringVar(&version, "version", "", "an npm-style version constraint (default: the latest)")
	return cmd
}

func newAgentsRunsCmd(io Stdio) *cobra.Command {
	var status []string
	var limit int
	cmd := accountCmd(io, &cobra.Command{
		Use:   "runs [--status S,...] [--limit N]",
		Short: "List the account's agent workflow runs, newest first",
		Long: `List the account's agent workflow runs (GET /api/v1/agent-workflows/runs):
{run_id, workflow_id, name, version, status, created_at, started_at,
finished_at}, newest first. sluice runs get ID shows one with its steps.

Exit 0 with the list, 1 when the server refused, 2 for a bad flag.`,
		Args: cobra.NoArgs,
	}, func(cmd *cobra.Command, _ []string, format string, c *client.Client) error {
		st := splitList(status)
		list, err := gather(limit, func(cursor string, n int) ([]client.AgentWorkflowRun, string, error) {
			return c.AgentWorkflowRuns(cmd.Context(), st, cursor, n)
		}, nil)
		if err != nil {
			return err
		}
		return io.render(format, list, awfCols...)
	})
	cmd.Flags().StringSliceVar(&status, "status", nil, "only runs of these statuses")
	cmd.Flags().IntVar(&limit, "limit", 50, "list at most this many")
	return cmd
}
