package client

import "context"

// RotateReport says what a vault rotation did: every record is now sealed
// with KeyID; previous master keys may go once Resealed+Current == Total.
type RotateReport struct {
	KeyID    string `json:"key_id"`
	Total    int    `json:"total"`
	Resealed int    `json:"resealed"`
	Current  int    `json:"current"`
	Changed  int    `json:"changed"` // written by another server meanwhile, left as it sealed them
}

// RotateVault re-seals every credential under the server's current master
// key (POST /api/v1/admin/vault/rotate; admin).
func (c *Client) RotateVault(ctx context.Context) (*RotateReport, error) {
	var r RotateReport
	return &r, c.Do(ctx, "POST", "/api/v1/admin/vault/rotate", nil, &r)
}
