package agent

// ACPBusy counts agent name's processes serving a call (for tests that
// wait for a turn to be under way).
func (inv *Invoker) ACPBusy(name string) int {
	inv.acp.mu.Lock()
	defer inv.acp.mu.Unlock()
	n := 0
	for _, p := range inv.acp.procs {
		if p.agent == name && p.busy && p.cmd != nil {
			n++
		}
	}
	return n
}

// ACPLive counts agent name's live processes, busy or idle.
func (inv *Invoker) ACPLive(name string) int {
	inv.acp.mu.Lock()
	defer inv.acp.mu.Unlock()
	n := 0
	for _, p := range inv.acp.procs {
		if p.agent == name && p.cmd != nil && !p.dead() {
			n++
		}
	}
	return n
}

// LowerUpdateLimit makes one call pass on at most n updates until t ends.
func LowerUpdateLimit(t interface{ Cleanup(func()) }, n int) int {
	old := updateLimit
	updateLimit = n
	t.Cleanup(func() { updateLimit = old })
	return n
}
