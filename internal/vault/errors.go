package vault

import "github.com/sluicehq/sluice/internal/fault"

// unavailable is the one error for a credential id the vault cannot give: the
// same for an unknown id in every vault, so a caller learns nothing about which
// ids exist beyond its grants.
func unavailable(id string) *fault.Error {
	return fault.Typed(fault.PermissionDenied, fault.PermissionError, "credential %q is not available", id).
		WithDetail("credentialId", id).
		WithSuggestions("Use a credential listed in availableCredentials of /api/v1/capabilities")
}
