package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X github.com/sluicehq/sluice/internal/cli.Version=v1.2.3".
var Version = ""

// buildInfo is what `sluice version` reports: the release, and the VCS
// stamp the Go toolchain writes into a binary built from a checkout
// (go build and go install record vcs.revision, vcs.time and vcs.modified).
type buildInfo struct {
	Version   string
	Commit    string
	BuildDate string
	Dirty     bool
	GoVersion string
	Platform  string
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

func currentBuild() buildInfo {
	b := buildInfo{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := readBuildInfo()
	if ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			b.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.BuildDate = s.Value
			case "vcs.modified":
				b.Dirty = s.Value == "true"
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

func version() string { return currentBuild().Version }

// String is the one line of `sluice version` and `sluice --version`.
func (b buildInfo) String() string {
	commit, date := b.Commit, b.BuildDate
	if commit == "" {
		commit = "unknown"
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if b.Dirty {
		commit += "-dirty"
	}
	if date == "" {
		date = "unknown"
	}
	return fmt.Sprintf("sluice %s (commit %s, built %s, %s, %s)", b.Version, commit, date, b.GoVersion, b.Platform)
}

func newVersionCmd(io Stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of sluice: release, commit, build date, dirty flag, Go version",
		Long: `Print the version of sluice. The commit, its date and whether the checkout
had uncommitted changes ("-dirty") come from the build information the Go
toolchain records (vcs.revision, vcs.time, vcs.modified); a binary built
outside a checkout says "unknown". sluice --version prints the same line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(io.Out, currentBuild())
			return nil
		},
	}
}
