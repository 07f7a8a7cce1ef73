// Package agent calls HTTP task agents (specs/a2a-agent-http.md, "HTTP task
// agents" in RESOLUTIONS): the Registry keeps their entries in the store and
// their credentials in the vault, the Invoker sends tasks with the
// registry's timeout and retry policy, a circuit breaker per agent, and
// health checks; MockAgent is the test agent behind `sluice mock-agent`.
//
// Policy that lives here: an agent's URL must pass the server's egress rule
// (private, loopback and link-local addresses are refused unless
// egress.allow_private lists them) when it is registered and again when it
// is called, and the egress transport checks every connection at dial time.
// Which accounts may call which agents (the agents grant) is the caller's
// check, made before Invoke.
//
// Secrets: a plain token, key or header value given at registration is
// moved into the vault under an id of the form agent.<name>.<field>.<random>
// and replaced by a credentialRef; the store never holds a value. Values
// are resolved at call time and scrubbed from anything an agent sends back
// that could reach an error, a log line or a result.
package agent
