package op

import (
	"context"
	"time"
)

// bindingLookupTimeout bounds one look-up of a credential's binding made
// before anything runs.
const bindingLookupTimeout = 5 * time.Second

// BindingLookup returns the look-up of credential bindings that the checks
// made before anything runs use (workflow validation, compiling a capability
// run), over v; nil when v cannot tell a binding without opening the
// credential (op.HostBindings). A look-up that fails answers unbound: the
// check where the credential is put into a request still refuses it.
func BindingLookup(v Vault) func(id string) []string {
	hb, ok := v.(HostBindings)
	if !ok {
		return nil
	}
	return func(id string) []string {
		ctx, cancel := context.WithTimeout(context.Background(), bindingLookupTimeout)
		defer cancel()
		hosts, _, err := hb.BoundHosts(ctx, id)
		if err != nil {
			return nil
		}
		return hosts
	}
}
