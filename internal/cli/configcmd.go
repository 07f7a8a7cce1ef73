package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/config"
)

// initHeader heads the file `sluice init` writes, above the embedded
// defaults file: that file is what config.Defaults() decodes, so what init
// writes is the defaults by construction (TestInitWritesTheDefaults).
const initHeader = `# sluice.yaml, written by ` + "`sluice init`" + `: every key at its default.
# Change what you need and delete the rest; ` + "`sluice config print --config sluice.yaml`" + `
# shows the result and where each value comes from.

`

func newInitCmd(io Stdio) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented sluice.yaml with every key at its default",
		Long: `Write a configuration file (default sluice.yaml) holding every key at its
default, each explained, and print the next steps. An existing file is kept
unless --force. docs/configuration.md describes every key.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "sluice.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
				flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			}
			f, err := os.OpenFile(path, flags, 0o600)
			if errors.Is(err, fs.ErrExist) {
				return fail(ExitInvalid, "%s exists; keep it, or pass --force to overwrite it", path)
			}
			if err != nil {
				return fail(ExitFailed, "cannot write %s: %v", path, err)
			}
			_, err = f.Write(append([]byte(initHeader), config.DefaultsYAML()...))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fail(ExitFailed, "cannot write %s: %v", path, err)
			}
			fmt.Fprintf(io.Out, `Wrote %[1]s (every key at its default).
Next:
  1. Edit %[1]s: addr, data_dir and store are the usual first changes.
  2. Check it: sluice config print --config %[1]s
  3. Start the server: sluice serve --config %[1]s (it prints the admin key once)
`, path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	return cmd
}

func newConfigCmd(io Stdio) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show the server's configuration"}
	var f serveFlags
	printCmd := &cobra.Command{
		Use:   "print [--config FILE] [serve's flags]",
		Short: "Print the effective configuration, secrets redacted, and where each value came from",
		Long: `Print the configuration sluice serve would run with, given the same file,
environment and flags: every key as YAML (that sluice reads back), each with a
comment saying where its value came from: default, the file (file:line:col),
environment VAR, or flag --NAME. Passwords in URLs show as xxxxx, the admin key
only as set or unset, an MCP command's NAME=value variables as NAME=[REDACTED].`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, sources, err := config.LoadSources(config.Options{Path: f.config})
			if err != nil {
				return fail(ExitInvalid, "%v", err)
			}
			flagged, err := f.apply(cmd, cfg)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(io.Out, renderConfig(cfg, sources, flagged))
			return err
		},
	}
	f.register(printCmd)
	cmd.AddCommand(printCmd)
	return cmd
}

// renderConfig writes the configuration as YAML with a source comment on
// every key.
func renderConfig(cfg *config.Config, sources config.Sources, flagged map[string]string) string {
	var b strings.Builder
	for _, e := range config.Entries(cfg) {
		indent := strings.Repeat("  ", e.Depth)
		if e.Section {
			fmt.Fprintf(&b, "%s%s:\n", indent, e.Key)
			continue
		}
		src := sources.Of(e.Path).String()
		if fl, ok := flagged[e.Path]; ok {
			src = "flag " + fl
		}
		line := fmt.Sprintf("%s%s: %s", indent, e.Key, e.Value)
		if e.Path == "admin_key" {
			// Not a key of the file (it is refused there): a comment.
			line = "# admin_key: " + e.Value
		}
		fmt.Fprintf(&b, "%-56s # %s\n", line, src)
	}
	return b.String()
}
