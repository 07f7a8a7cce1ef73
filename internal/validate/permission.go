package validate

import (
	"net"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// checkPermissions is the permission level: operations the account may not build,
// literal ApiCall hosts it may not reach, credentials it may not use, agents it
// may not call. A host known
// only at run time (a template in the host) is checked at dial time instead.
func checkPermissions(ids []string, nodes map[string]*node, o Options, c *collector) {
	for _, id := range ids {
		n := nodes[id]
		if !n.known {
			continue
		}
		if o.Env != nil && !o.Env.Allowed(n.name) {
			c.err(forbidden(n, pathOperation+key(n.name), "operation %s is not permitted for this account", n.name).
				WithSuggestions("Use one of the operations this account may run: " + allowedNames(o)))
		}
		if n.name == a2e.OpApiCall {
			checkHost(n, o, c)
		}
		if o.Permissions == nil {
			continue
		}
		if n.name == a2e.OpInvokeAgent && n.agent != "" && !o.Permissions.AllowsAgent(n.agent) {
			c.err(forbidden(n, pathOperation+key(n.name)+".agent", "agent %s is not permitted for this account", n.agent).
				WithDetail("agent", n.agent).
				WithSuggestions(suggestions(
					c.didYouMean(n.agent, o.Permissions.Agents),
					"Use an agent this account is granted, or ask an administrator to grant "+n.agent,
				)...))
		}
		for _, cr := range n.creds {
			if o.Permissions.AllowsCredential(cr.id) {
				checkBinding(n, cr, o, c)
				continue
			}
			c.err(forbidden(n, cr.at, "credential %s is not permitted for this account", cr.id).
				WithSuggestions(suggestions(
					c.didYouMean(cr.id, o.Permissions.Credentials),
					"Use a credential listed in availableCredentials of /api/v1/capabilities, or ask an administrator to grant "+cr.id,
				)...))
		}
	}
}

// checkBinding refuses a credential bound to hosts in an ApiCall whose
// literal host is not one of them. A host known only at run time is checked
// when the request is sent.
func checkBinding(n *node, cr credUse, o Options, c *collector) {
	if o.CredentialHosts == nil {
		return
	}
	host, port, _, ok := literalHost(n.url)
	if !ok {
		return
	}
	if hosts := o.CredentialHosts(cr.id); !policy.CredentialMaySend(hosts, host, port) {
		c.err(policy.CredentialHostDenied(cr.id, hosts, host, port).WithOp(n.id).At(n.line, cr.at))
	}
}

func allowedNames(o Options) string {
	var names []string
	for _, s := range o.Env.Specs() {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// checkHost checks a literal ApiCall URL's host against the account's grants and
// warns about a literal private address, which the server's egress rule refuses at
// dial time unless configured otherwise.
func checkHost(n *node, o Options, c *collector) {
	host, port, explicit, ok := literalHost(n.url)
	if !ok {
		return
	}
	at := pathOperation + key(n.name) + ".url"
	if o.Permissions != nil && !o.Permissions.AllowsHost(host, port) && (o.AllowHost == nil || !o.AllowHost(host, port)) {
		shown := host
		if explicit {
			shown = net.JoinHostPort(host, port)
		}
		c.err(forbidden(n, at, "host %s is not permitted for this account", shown).
			WithSuggestions(suggestions(
				c.didYouMean(host, o.Permissions.Hosts),
				"Use a host listed in availableApis of /api/v1/capabilities, or ask an administrator to grant "+shown,
			)...))
		return
	}
	if private(host) && (o.PrivateAllowed == nil || !o.PrivateAllowed(host, port)) {
		c.warn(warning(n, fault.PermissionError, at,
			"host %s is a private, loopback or link-local address; it is refused when the request is sent unless the server's egress.allow_private lists it", host))
	}
}

// literalHost returns the host and port of an http(s) URL whose scheme and host
// hold no {/workflow/...} template. explicit says whether the URL names the port.
func literalHost(raw string) (host, port string, explicit, ok bool) {
	i := strings.Index(raw, "://")
	if i <= 0 {
		return "", "", false, false
	}
	authEnd := len(raw)
	if j := strings.IndexAny(raw[i+3:], "/?#"); j >= 0 {
		authEnd = i + 3 + j
	}
	t, err := a2e.ParseTemplate(raw)
	if err != nil {
		return "", "", false, false
	}
	for _, p := range t.Parts {
		if p.Ref != nil && p.Start < authEnd {
			return "", "", false, false // known only at run time
		}
	}
	u, err := url.Parse(raw[:authEnd])
	if err != nil {
		return "", "", false, false
	}
	host, port = u.Hostname(), u.Port()
	if host == "" {
		return "", "", false, false
	}
	explicit = port != ""
	switch strings.ToLower(u.Scheme) {
	case "https":
		if port == "" {
			port = "443"
		}
	case "http":
		if port == "" {
			port = "80"
		}
	default:
		return "", "", false, false // the factory refuses other schemes
	}
	return host, port, explicit, true
}

// private reports whether host is a literal address (or localhost) in a private,
// loopback, link-local or unspecified range.
func private(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	return ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()
}
