package cli

import (
	"context"
	"errors"
	"net/http"

	"github.com/sluicehq/sluice/client"
)

// accountID resolves what `sluice accounts get|update|rotate` was given:
// an account id, or else an account name (names are unique). An id wins
// when a text is both: it is what the admin API itself takes.
func accountID(ctx context.Context, c *client.Client, ref string) (string, error) {
	_, err := c.Account(ctx, ref)
	var ce *client.Error
	switch {
	case err == nil:
		return ref, nil
	case !errors.As(err, &ce) || ce.Status != http.StatusNotFound:
		return "", serverError(err)
	}
	cursor := ""
	for {
		page, next, err := c.Accounts(ctx, cursor, 1000)
		if err != nil {
			return "", serverError(err)
		}
		for _, a := range page {
			if a.Name == ref {
				return a.AgentID, nil
			}
		}
		if next == "" {
			return "", fail(ExitFailed, "%s; no account is named %q either (sluice accounts list shows them)", ce.Error(), ref)
		}
		cursor = next
	}
}
