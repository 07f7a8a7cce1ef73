package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/sluicehq/sluice/internal/fault"
)

// a2aCardTTL is how long a card read is used before it is read again: an
// agent that moves or changes its skills is seen within it.
const a2aCardTTL = 5 * time.Minute

// maxCardBytes bounds an agent card.
const maxCardBytes = 1 << 20

// cachedCard is an A2A agent's card as last read, for the entry URL it was
// read from.
type cachedCard struct {
	url  string
	card *a2a.AgentCard
	at   time.Time
}

// a2aCard is the card of the agent c calls: the one read within a2aCardTTL
// for the same entry URL, else read now (bounded by actx) and kept. Every
// interface it names must be on the registered host: the registry's
// credentials go to that host and no other.
func (inv *Invoker) a2aCard(actx, ctx context.Context, c *call) (*a2a.AgentCard, *result) {
	now := inv.o.Clock.Now()
	inv.mu.Lock()
	cc, ok := inv.cards[c.name]
	inv.mu.Unlock()
	if ok && cc.url == c.entry.URL && now.Sub(cc.at) < a2aCardTTL {
		return cc.card, nil
	}
	card, err := inv.readCard(actx, c)
	if err != nil {
		if fe, ok := fault.As(err); ok {
			return nil, &result{err: fe}
		}
		return nil, inv.a2aFailure(ctx, actx, c, err)
	}
	inv.mu.Lock()
	inv.cards[c.name] = cachedCard{url: c.entry.URL, card: card, at: now}
	inv.mu.Unlock()
	return card, nil
}

// CardURL is where an A2A agent's card is read: the entry URL when it names
// a .json document, else the well-known path under it.
func CardURL(entryURL string) string {
	if strings.HasSuffix(strings.ToLower(strings.SplitN(entryURL, "?", 2)[0]), ".json") {
		return entryURL
	}
	return strings.TrimRight(entryURL, "/") + "/.well-known/agent-card.json"
}

// readCard fetches and parses the card, in A2A 1.0's form or 0.3's.
func (inv *Invoker) readCard(ctx context.Context, c *call) (*a2a.AgentCard, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, CardURL(c.entry.URL), nil)
	if err != nil {
		return nil, fault.New(fault.Invalid, "agent %s has a URL its card cannot be read from", c.name).WithDetail("agent", c.name)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := inv.a2aHTTPClient(c).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, upstream(c.name, "answered %s for its agent card at %s", statusText(resp.StatusCode), CardURL(c.entry.URL)).
			WithDetail("statusCode", resp.StatusCode)
	}
	if len(body) > maxCardBytes {
		return nil, upstream(c.name, "has an agent card over %d bytes", maxCardBytes)
	}
	card, err := agentcard.DefaultCardParser(body)
	if err != nil || len(card.SupportedInterfaces) == 0 {
		if old, oerr := a2av0.NewAgentCardParser()(body); oerr == nil && len(old.SupportedInterfaces) > 0 {
			card, err = old, nil
		}
	}
	if err != nil || card == nil || len(card.SupportedInterfaces) == 0 {
		why := "it names no interface"
		if err != nil {
			why = c.scrub.ScrubText(err.Error())
		}
		return nil, upstream(c.name, "has an agent card sluice cannot read: %s", why).
			WithSuggestions("Register the URL of an A2A agent card (or the base URL it is found under, /.well-known/agent-card.json)")
	}
	host := hostOf(c.entry.URL)
	for _, iface := range card.SupportedInterfaces {
		if h := hostOf(iface.URL); h != host {
			return nil, fault.New(fault.PermissionDenied,
				"agent %s: its card names the interface %s on host %q, not on the registered host %q; its credentials go to that host only",
				c.name, iface.ProtocolBinding, h, host).WithDetail("agent", c.name).
				WithSuggestions(fmt.Sprintf("Register the agent under a URL on %s", h))
		}
	}
	return card, nil
}

// limitBody ends a body with an error past n bytes.
func limitBody(rc io.ReadCloser, n int64) io.ReadCloser {
	return &limitedBody{rc: rc, left: n}
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

var errBodyTooLarge = errors.New("the answer is over the size limit")

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.rc.Close() }
