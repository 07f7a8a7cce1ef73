package cli

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluicehq/sluice/client"
)

// adminClient is a client of the server at SLUICE_URL with the admin key of
// SLUICE_ADMIN_KEY (RESOLUTIONS "Conventions"); --url and --admin-key (which
// also takes @FILE and env:VAR) override them.
type adminFlags struct {
	url string
	key string
}

func (f *adminFlags) register(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&f.url, "url", "", "server URL (default $SLUICE_URL, else http://127.0.0.1:8080)")
	cmd.PersistentFlags().StringVar(&f.key, "admin-key", "", "admin key, @FILE or env:VAR (default $SLUICE_ADMIN_KEY)")
}

func (f *adminFlags) client() (*client.Client, error) {
	u := f.url
	if u == "" {
		u = os.Getenv("SLUICE_URL")
	}
	if u == "" {
		u = "http://127.0.0.1:8080"
	}
	key := os.Getenv("SLUICE_ADMIN_KEY")
	if f.key != "" {
		v, err := readValue("--admin-key", f.key, 4<<10)
		if err != nil {
			return nil, err
		}
		key = v
	}
	if key == "" {
		return nil, fail(ExitInvalid, "no admin key: set SLUICE_ADMIN_KEY or pass --admin-key")
	}
	return client.New(u, key, nil), nil
}

// permissionFlags are the grants an account command may set.
type permissionFlags struct {
	operations, hosts, apis, credentials, agents, mcpServers, capabilities, kbs []string
	level                                                                       string
	limits                                                                      []string
}

func (p *permissionFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&p.operations, "operations", nil, "operations the account may use (* for all)")
	fl.StringSliceVar(&p.hosts, "hosts", nil, "hosts it may call: host, host:port, *.domain or *")
	fl.StringSliceVar(&p.apis, "apis", nil, "API grants (kb or kb.operationId)")
	fl.StringSliceVar(&p.credentials, "credentials", nil, "vault credential ids it may use")
	fl.StringSliceVar(&p.agents, "agents", nil, "external agents it may call")
	fl.StringSliceVar(&p.mcpServers, "mcp-servers", nil, "MCP servers it may use")
	fl.StringSliceVar(&p.capabilities, "capabilities", nil, "capability grants")
	fl.StringSliceVar(&p.kbs, "knowledge-bases", nil, "knowledge bases")
	fl.StringVar(&p.level, "capability-level", "", "basic, elevated or admin")
	fl.StringArrayVar(&p.limits, "limit", nil, "a limit NAME=N, e.g. requests_per_minute=120 (repeatable)")
}

// spec builds the account spec from the flags that were set.
func (p *permissionFlags) spec(cmd *cobra.Command, full bool) (client.AccountSpec, error) {
	var sp client.AccountSpec
	changed := func(names ...string) bool {
		for _, n := range names {
			if cmd.Flags().Changed(n) {
				return true
			}
		}
		return false
	}
	if full || changed("operations", "hosts", "apis", "credentials", "agents", "mcp-servers", "capabilities", "knowledge-bases", "capability-level") {
		sp.Permissions = &client.Permissions{Operations: p.operations, Hosts: p.hosts, APIs: p.apis, Credentials: p.credentials,
			Agents: p.agents, MCPServers: p.mcpServers, Capabilities: p.capabilities, KnowledgeBases: p.kbs, CapabilityLevel: p.level}
	}
	if len(p.limits) > 0 {
		sp.Limits = map[string]int{}
		for _, l := range p.limits {
			name, v, ok := strings.Cut(l, "=")
			n, err := strconv.Atoi(v)
			if !ok || name == "" || err != nil {
				return sp, fail(ExitInvalid, "--limit wants NAME=INTEGER, got %q", l)
			}
			sp.Limits[name] = n
		}
	}
	return sp, nil
}

// patch is a JSON merge patch (RFC 7396) of the flags that were set, and of
// nothing else: `update --knowledge-bases kb` changes that grant and keeps
// the others. A list flag set to "" empties its list.
func (p *permissionFlags) patch(cmd *cobra.Command) (map[string]any, error) {
	patch := map[string]any{}
	perms := map[string]any{}
	for _, f := range []struct {
		flag, member string
		v            []string
	}{
		{"operations", "operations", p.operations}, {"hosts", "hosts", p.hosts}, {"apis", "apis", p.apis},
		{"credentials", "credentials", p.credentials}, {"agents", "agents", p.agents}, {"mcp-servers", "mcp_servers", p.mcpServers},
		{"capabilities", "capabilities", p.capabilities}, {"knowledge-bases", "knowledge_bases", p.kbs},
	} {
		if cmd.Flags().Changed(f.flag) {
			perms[f.member] = append([]string{}, f.v...) // [] rather than null, which would remove the member
		}
	}
	if cmd.Flags().Changed("capability-level") {
		perms["capability_level"] = p.level
	}
	if len(perms) > 0 {
		patch["permissions"] = perms
	}
	sp, err := p.spec(cmd, false)
	if err != nil {
		return nil, err
	}
	if sp.Limits != nil {
		patch["limits"] = sp.Limits
	}
	return patch, nil
}

// accountCols are the table columns of an account.
var accountCols = []string{"agent_id", "name", "disabled", "created_at", "updated_at"}

func newAccountsCmd(io Stdio) *cobra.Command {
	var af adminFlags
	cmd := &cobra.Command{Use: "accounts", Short: "Manage accounts (the callers of sluice) through the admin API"}
	af.register(cmd)

	var create permissionFlags
	var name string
	createCmd := &cobra.Command{
		Use: "create --name NAME [--operations ...] [--hosts ...] [--limit NAME=N]...", Short: "Create an account; prints its first API key once",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			sp, err := create.spec(cmd, true)
			if err != nil {
				return err
			}
			sp.Name = &name
			a, k, err := c.CreateAccount(cmd.Context(), sp)
			if err != nil {
				return serverError(err)
			}
			return writeJSON(io.Out, map[string]any{"agent_id": a.AgentID, "api_key": k.APIKey, "key_id": k.KeyID, "account": a})
		},
	}
	createCmd.Flags().StringVar(&name, "name", "", "the account's name, unique on the server (accounts get|update take it)")
	create.register(createCmd)

	var listOut, getOut string
	listCmd := &cobra.Command{
		Use: "list", Short: "List accounts", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, c, err := io.start(listOut, af.client)
			if err != nil {
				return err
			}
			var all []client.Account
			cursor := ""
			for {
				page, next, err := c.Accounts(cmd.Context(), cursor, 1000)
				if err != nil {
					return serverError(err)
				}
				all = append(all, page...)
				if next == "" {
					break
				}
				cursor = next
			}
			if all == nil {
				all = []client.Account{}
			}
			return io.render(format, all, accountCols...)
		},
	}
	addOutputFlag(listCmd, &listOut)

	getCmd := &cobra.Command{
		Use: "get ID|NAME", Short: "Show an account and its keys (by id, or by its unique name)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, c, err := io.start(getOut, af.client)
			if err != nil {
				return err
			}
			id, err := accountID(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			a, err := c.Account(cmd.Context(), id)
			if err != nil {
				return serverError(err)
			}
			keys, err := c.Keys(cmd.Context(), id)
			if err != nil {
				return serverError(err)
			}
			return io.render(format, map[string]any{"account": a, "keys": keys}, "account", "keys")
		},
	}
	addOutputFlag(getCmd, &getOut)

	var update permissionFlags
	var newName string
	var disable, enable bool
	updateCmd := &cobra.Command{
		Use: "update ID|NAME [--name N] [--operations ...] [--limit NAME=N]... [--disable|--enable]", Short: "Change an account (by id, or by its unique name)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if disable && enable {
				return fail(ExitInvalid, "--disable and --enable exclude each other")
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			patch, err := update.patch(cmd)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("name") {
				patch["name"] = newName
			}
			if disable || enable {
				patch["disabled"] = disable
			}
			id, err := accountID(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			a, err := c.PatchAccount(cmd.Context(), id, patch)
			if err != nil {
				return serverError(err)
			}
			return writeJSON(io.Out, a)
		},
	}
	updateCmd.Flags().StringVar(&newName, "name", "", "a new name, unique on the server")
	updateCmd.Flags().BoolVar(&disable, "disable", false, "disable the account (all its keys stop working)")
	updateCmd.Flags().BoolVar(&enable, "enable", false, "enable the account again")
	update.register(updateCmd)

	var revokeOld bool
	rotateCmd := &cobra.Command{
		Use: "rotate ID [--revoke-old]", Short: "Issue a new API key; with --revoke-old, revoke every other key",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			k, err := c.AddKey(cmd.Context(), args[0])
			if err != nil {
				return serverError(err)
			}
			var revoked []string
			if revokeOld {
				keys, err := c.Keys(cmd.Context(), args[0])
				if err != nil {
					return serverError(err)
				}
				for _, old := range keys {
					if old.KeyID == k.KeyID || old.RevokedAt != nil {
						continue
					}
					if _, err := c.RevokeKey(cmd.Context(), args[0], old.KeyID); err != nil {
						return serverError(err)
					}
					revoked = append(revoked, old.KeyID)
				}
			}
			if revoked == nil {
				revoked = []string{}
			}
			return writeJSON(io.Out, map[string]any{"agent_id": k.AgentID, "key_id": k.KeyID, "api_key": k.APIKey, "revoked": revoked})
		},
	}
	rotateCmd.Flags().BoolVar(&revokeOld, "revoke-old", false, "revoke the account's other keys")

	revokeCmd := &cobra.Command{
		Use: "revoke ID KEY_ID", Short: "Revoke one API key", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			k, err := c.RevokeKey(cmd.Context(), args[0], args[1])
			if err != nil {
				return serverError(err)
			}
			return writeJSON(io.Out, k)
		},
	}
	cmd.AddCommand(createCmd, listCmd, getCmd, updateCmd, rotateCmd, revokeCmd)
	return cmd
}

func newVaultCmd(io Stdio) *cobra.Command {
	var af adminFlags
	cmd := &cobra.Command{Use: "vault", Short: "Manage the credential vault through the admin API"}
	af.register(cmd)

	var typ, desc, value string
	var hosts []string
	putCmd := &cobra.Command{
		Use:   "put ID --type TYPE [--host H]... [--description D] [--value @FILE|env:VAR]",
		Short: "Store a credential; the value is read from stdin unless --value names a file or variable",
		Long: "Store a credential; the value is read from stdin unless --value names a file or variable.\n" +
			"On a terminal it is asked for, and not shown as it is typed.\n\n" +
			"--host binds the credential to a host (host, host:port or *.domain; repeat it for more): it is then\n" +
			"sent to no other host, whatever an account's grants allow, and a workflow that would send it\n" +
			"elsewhere is refused. Bind every credential to the hosts it is for: an unbound one goes to any\n" +
			"host its accounts may reach, where an upstream could echo it back in a form scrubbing misses.\n" +
			"Replacing a credential replaces its binding: give --host again.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if typ == "" {
				return fail(ExitInvalid, "--type is required (e.g. bearer-token, api-key, basic)")
			}
			v := ""
			switch {
			case value == "":
				typed, prompted, err := io.promptSecret("Value of credential "+args[0]+" (not shown): ", 64<<10)
				if err != nil {
					return err
				}
				if prompted {
					v = typed
					break
				}
				b, err := io.ReadAllFrom(64 << 10)
				if err != nil {
					return err
				}
				v = strings.TrimRight(b, "\r\n")
			case strings.HasPrefix(value, "@") || strings.HasPrefix(value, "env:"):
				var err error
				if v, err = readValue("--value", value, 64<<10); err != nil {
					return err
				}
			default:
				return fail(ExitInvalid, "--value takes @FILE or env:VAR only, so a secret never sits on the command line")
			}
			if v == "" {
				return fail(ExitInvalid, "the credential value is empty")
			}
			c, err := af.client()
			if err != nil {
				return err
			}
			m, err := c.PutCredential(cmd.Context(), args[0], typ, v, desc, hosts...)
			if err != nil {
				return serverError(err)
			}
			return writeJSON(io.Out, m)
		},
	}
	putCmd.Flags().StringVar(&typ, "type", "", "credential type: bearer-token (sent as Bearer <value>), api-key, basic, ...")
	putCmd.Flags().StringVar(&desc, "description", "", "a description")
	putCmd.Flags().StringVar(&value, "value", "", "@FILE or env:VAR holding the value (default: stdin)")
	putCmd.Flags().StringArrayVar(&hosts, "host", nil, "a host the credential may be sent to: host, host:port or *.domain (repeatable; recommended)")

	var listOut string
	listCmd := &cobra.Command{
		Use: "list", Short: "List credentials (never their values)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, c, err := io.start(listOut, af.client)
			if err != nil {
				return err
			}
			list, err := c.Credentials(cmd.Context())
			if err != nil {
				return serverError(err)
			}
			if list == nil {
				list = []client.Credential{}
			}
			return io.render(format, list, "id", "type", "hosts", "description", "updated_at")
		},
	}
	addOutputFlag(listCmd, &listOut)
	deleteCmd := &cobra.Command{
		Use: "delete ID", Short: "Delete a credential", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			if err := c.DeleteCredential(cmd.Context(), args[0]); err != nil {
				return serverError(err)
			}
			return writeJSON(io.Out, map[string]any{"id": args[0], "deleted": true})
		},
	}
	rotateCmd := &cobra.Command{
		Use:   "rotate",
		Short: "Re-seal every credential under the server's current master key",
		Long: `Re-seal every credential under the server's current master key, after a new
key was put in place and the old one kept as a previous key (docs/configuration.md,
"Rotating the master key"). All or nothing: when a credential opens with no key the
server has, nothing is written. Prints {key_id, total, resealed, current, changed};
the previous keys may go when resealed + current == total.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := af.client()
			if err != nil {
				return err
			}
			rep, err := c.RotateVault(cmd.Context())
			if err != nil {
				return serverError(err)
			}
			if err := writeJSON(io.Out, rep); err != nil {
				return err
			}
			if rep.Resealed+rep.Current != rep.Total {
				return fail(ExitFailed, "%d credential(s) were changed by another server during the rotation: run it again", rep.Changed)
			}
			return nil
		},
	}
	cmd.AddCommand(putCmd, listCmd, deleteCmd, rotateCmd)
	return cmd
}

// ReadAllFrom reads the command's stdin up to limit bytes.
func (s Stdio) ReadAllFrom(limit int64) (string, error) {
	if s.In == nil {
		return "", fail(ExitInvalid, "no input on stdin")
	}
	b, err := io.ReadAll(io.LimitReader(s.In, limit+1))
	if err != nil {
		return "", fail(ExitInvalid, "reading stdin: %v", err)
	}
	if int64(len(b)) > limit {
		return "", fail(ExitInvalid, "stdin holds more than %d bytes", limit)
	}
	return string(b), nil
}
