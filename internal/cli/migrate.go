package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/internal/store/keyguard"
	"github.com/sluicehq/sluice/internal/store/postgres"
	"github.com/sluicehq/sluice/internal/store/sqlite"
	"github.com/sluicehq/sluice/internal/store/storecopy"
	"github.com/sluicehq/sluice/internal/vault"
)

type migrateFlags struct {
	from, to string
}

func newMigrateCmd(io Stdio) *cobra.Command {
	var f migrateFlags
	cmd := &cobra.Command{
		Use:   "migrate --from DATA_DIR --to postgres://...",
		Short: "Copy a single-machine installation into PostgreSQL, then verify the copy",
		Long: `Copy everything a single-machine sluice keeps in DATA_DIR (its SQLite store:
accounts, API keys, vault ciphertext and credentials metadata, executions with
their checkpoints and events, audit, localStorage, MCP servers, the capability
and agent registries, knowledge bases; and the files of the file storage) into
a PostgreSQL store, then verify it: for every table the row count and a
SHA-256 over all rows in key order, on both sides.

Stop the server first (the data directory is locked while it runs). Running
the command again is safe: it copies only what is missing and never changes a
row that is there; rows that differ are reported. It exits 0 when everything
verified, 1 when something did not (see the table), 2 on wrong flags. When
stderr is a terminal, a line there says as each table is copied.

The copied keys and credentials still need the keys of DATA_DIR: give every
gateway the same master.key and pepper.key (or SLUICE_MASTER_KEY and
SLUICE_KEY_PEPPER). The command claims them for the database, so a gateway
started with other keys is refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return migrate(cmd, io, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "the data directory of the single-machine server (required)")
	fl.StringVar(&f.to, "to", "", "the PostgreSQL store, a postgres:// URL (required; leave the password to PGPASSWORD)")
	return cmd
}

func migrate(cmd *cobra.Command, io Stdio, f migrateFlags) error {
	if f.from == "" || f.to == "" {
		return fail(ExitInvalid, "migrate needs --from DATA_DIR and --to postgres://...")
	}
	if !strings.HasPrefix(f.to, "postgres://") && !strings.HasPrefix(f.to, "postgresql://") {
		return fail(ExitInvalid, "--to: want a postgres:// URL")
	}
	if _, err := os.Stat(filepath.Join(f.from, "sluice.db")); err != nil {
		return fail(ExitInvalid, "--from %s: no sluice.db there (is it a sluice data directory?)", f.from)
	}
	ctx := cmd.Context()
	log := slog.New(slog.NewTextHandler(io.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	src, err := sqlite.Open(ctx, sqlite.Options{Dir: f.from, Logger: log})
	if err != nil {
		return fail(ExitFailed, "the source: %s", fault.From(err).Message)
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, postgres.Options{DSN: f.to, Logger: log})
	if err != nil {
		return fail(ExitFailed, "the target: %s", fault.From(err).Message)
	}
	defer dst.Close()

	keys, err := claimKeys(cmd, dst, f.from)
	if err != nil {
		return err
	}
	o := storecopy.Options{Logger: log, FilesDir: filepath.Join(f.from, "files")}
	if terminal(io) { // progress for a person; nothing when stderr is piped
		o.Progress = func(done, total int, table string) {
			fmt.Fprintf(io.Err, "copied %d/%d tables (%s)\n", done, total, table)
		}
	}
	rep, err := storecopy.Copy(ctx, src, dst, o)
	if err != nil {
		return fail(ExitFailed, "%s", fault.From(err).Message)
	}
	printReport(io, rep)
	fmt.Fprintln(io.Out)
	fmt.Fprintln(io.Out, keys)
	if !rep.OK() {
		return fail(ExitFailed, "the copy did not verify: see the table (rows the target holds differently are never overwritten)")
	}
	fmt.Fprintln(io.Out, "verified: every table and file matches")
	return nil
}

// claimKeys claims the source's vault master key and key pepper for the
// target (store/keyguard), and says what every gateway needs.
func claimKeys(cmd *cobra.Command, dst *postgres.DB, dir string) (string, error) {
	for _, k := range []struct{ env, file string }{{vault.EnvMasterKey, vault.MasterKeyFile}, {policy.EnvKeyPepper, policy.KeyPepperFile}} {
		if _, set := os.LookupEnv(k.env); set {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, k.file)); errors.Is(err, fs.ErrNotExist) {
			return "", fail(ExitFailed, "%s has no %s and %s is not set: these are the keys the server used; set %s as the server had it",
				dir, k.file, k.env, k.env)
		}
	}
	pepper, err := policy.LoadPepper(dir, nil)
	if err != nil {
		return "", fail(ExitFailed, "the key pepper: %s", fault.From(err).Message)
	}
	ring, err := vault.LoadKeyring(vault.KeyringSource{DataDir: dir})
	if err != nil {
		return "", fail(ExitFailed, "the vault master key: %s", fault.From(err).Message)
	}
	if err := keyguard.Check(cmd.Context(), dst, ring, pepper, nil, nil); err != nil {
		fe := fault.From(err)
		return "", fail(ExitFailed, "the target database belongs to servers with other keys: %s", fe.Message)
	}
	return fmt.Sprintf("keys: the copied API keys and credentials need the keys of %s (vault master key id %s):\n"+
		"give every gateway the same %s and %s, or set %s and %s.",
		dir, ring.CurrentID(), vault.MasterKeyFile, policy.KeyPepperFile, vault.EnvMasterKey, policy.EnvKeyPepper), nil
}

func printReport(io Stdio, rep storecopy.Report) {
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tcopied\tsource\ttarget\tchecksum")
	for _, t := range append(slices.Clone(rep.Tables), rep.Files) {
		state := "ok " + short(t.SourceSum)
		switch {
		case t.SourceSum == "derived":
			state = "rebuilt"
		case !t.OK():
			state = fmt.Sprintf("DIFFERS (%d missing, %d extra, %d changed)", t.Missing, t.Extra, t.Differ)
		}
		src, dst := fmt.Sprint(t.Source), fmt.Sprint(t.Target)
		if t.SourceSum == "derived" {
			src, dst = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", t.Table, t.Copied, src, dst, state)
	}
	tw.Flush()
	for _, t := range append(slices.Clone(rep.Tables), rep.Files) {
		for _, e := range t.Examples {
			fmt.Fprintf(io.Out, "  %s: %s\n", t.Table, e)
		}
		for _, p := range t.Problems {
			fmt.Fprintf(io.Out, "  %s: cannot be copied: %s\n", t.Table, p)
		}
	}
	names := make([]string, 0, len(storecopy.Skipped))
	for n := range storecopy.Skipped {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Fprintln(io.Out, "\nnot copied:")
	for _, n := range names {
		fmt.Fprintf(io.Out, "  %s: %s\n", n, storecopy.Skipped[n])
	}
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
