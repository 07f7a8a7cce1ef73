package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newBenchCmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Measure whole-system figures"}
	var o benchOptions
	var phases string
	var asJSON bool
	serveCmd := &cobra.Command{
		Use:   "serve",
		Short: "Drive an in-process server with concurrent clients: a data workflow, an ApiCall workflow, and the upstream called directly",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if phases != "" {
				o.Phases = strings.Split(phases, ",")
			}
			tuneGC() // the server runs in this process: tune it as serve does
			rep, err := runBenchServe(cmd.Context(), o)
			if err != nil {
				return fail(ExitFailed, "%v", err)
			}
			if asJSON {
				return writeJSON(io.Out, rep)
			}
			rep.Write(io.Out)
			for _, p := range rep.Phases {
				if p.Errors > 0 {
					return silent(ExitFailed)
				}
			}
			return nil
		},
	}
	fl := serveCmd.Flags()
	fl.IntVar(&o.Clients, "clients", 32, "concurrent clients")
	fl.DurationVar(&o.Duration, "duration", 5*time.Second, "measured time per phase")
	fl.DurationVar(&o.Warmup, "warmup", time.Second, "unmeasured time before each phase")
	fl.StringVar(&o.DataDir, "data", "", "data directory (default: a temporary one)")
	fl.StringVar(&phases, "phases", "", "phases to run, comma-separated: direct,data,apicall (default all)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fl.IntVar(&o.Rate, "rate", 0, "pace each phase at this many requests/s in all (0: as fast as possible); compare latency at one rate")
	fl.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	fl.StringArrayVar(&o.Stores, "store", nil, `store to measure, "sqlite" or a postgres:// URL (each run in a schema of its own); repeat to compare in one run`)
	fl.IntSliceVar(&o.Gateways, "gateways", nil, "gateways sharing a PostgreSQL store, e.g. 1,2 (default 1)")
	cmd.AddCommand(serveCmd)
	cmd.AddCommand(newBenchDiscoveryCmd(io))
	cmd.AddCommand(newBenchHTTPCmd(io))
	cmd.AddCommand(newBenchMCPEchoCmd())
	return cmd
}
