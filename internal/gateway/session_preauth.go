package gateway

import (
	"net"
	"sync"
)

// preAuthSlots bound the session connections (WebSocket and TCP) that have
// not completed their handshake: on the whole server and per remote IP
// address. A connection holds its slot from its arrival to its handshake's
// answer (at most the handshake timeout), so a peer without a key cannot
// hold more than its share of the server, however many connections it opens.
type preAuthSlots struct {
	mu         sync.Mutex
	total      int
	byAddr     map[string]int
	maxTotal   int
	maxPerAddr int
}

func newPreAuthSlots(maxTotal, maxPerAddr int) *preAuthSlots {
	return &preAuthSlots{byAddr: map[string]int{}, maxTotal: maxTotal, maxPerAddr: maxPerAddr}
}

// Why a connection was refused a slot (the metrics' reason label).
const (
	refusedServerBound  = "unauthenticated_server"
	refusedAddressBound = "unauthenticated_address"
)

// take gives remoteAddr's connection a slot; release (safe to call more than
// once) gives it back. Without a slot, refused names the bound that is full.
func (p *preAuthSlots) take(remoteAddr string) (release func(), refused string) {
	addr := remoteIP(remoteAddr)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.byAddr[addr] >= p.maxPerAddr:
		return nil, refusedAddressBound
	case p.total >= p.maxTotal:
		return nil, refusedServerBound
	}
	p.total++
	p.byAddr[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.total--
			if p.byAddr[addr]--; p.byAddr[addr] <= 0 {
				delete(p.byAddr, addr)
			}
		})
	}, ""
}

// remoteIP is the host part of a remote address ("127.0.0.1:5000" ->
// "127.0.0.1"); an address without a port is itself.
func remoteIP(remoteAddr string) string {
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return host
	}
	return remoteAddr
}
