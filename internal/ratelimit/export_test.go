package ratelimit

// Accounts counts the accounts the limiter holds state for.
func (lim *Limiter) Accounts() int {
	n := 0
	lim.accounts.Range(func(any, any) bool { n++; return true })
	return n
}
