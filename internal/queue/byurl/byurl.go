// Package byurl opens a shared queue from a URL (agents.queue, `sluice
// worker --queue`): nats://host:port[,host:port...] for JetStream
// (internal/queue/natsq) and kafka://host:port[,host:port...] for Kafka
// (internal/queue/kafkaq). Query parameters tune them: stream, subject and
// replicas for NATS; prefix, group and partitions for Kafka. A password in
// the URL never appears in an error.
package byurl

import (
	"context"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/queue"
	"github.com/sluicehq/sluice/internal/queue/kafkaq"
	"github.com/sluicehq/sluice/internal/queue/natsq"
)

// Open connects to the queue raw names.
func Open(ctx context.Context, raw string, log *slog.Logger) (queue.Queue, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fault.New(fault.Invalid, "the queue URL does not parse; want nats://HOST:PORT or kafka://HOST:PORT")
	}
	if u.Host == "" {
		return nil, fault.New(fault.Invalid, "the queue URL %s names no host", u.Redacted())
	}
	q := u.Query()
	switch u.Scheme {
	case "nats":
		if err := known(u, q, "stream", "subject", "replicas"); err != nil {
			return nil, err
		}
		o := natsq.Options{StreamName: q.Get("stream"), Subject: q.Get("subject"), Logger: log}
		if o.Replicas, err = intParam(u, q, "replicas", 1, 5); err != nil {
			return nil, err
		}
		// nats.go takes "nats://a:4222,nats://b:4222"; a URL's host holds
		// "a:4222,b:4222", so each server gets the scheme and user back.
		servers := strings.Split(u.Host, ",")
		for i, h := range servers {
			s := url.URL{Scheme: "nats", User: u.User, Host: h}
			servers[i] = s.String()
		}
		o.URL = strings.Join(servers, ",")
		return opened(natsq.Open(ctx, o))
	case "kafka":
		if u.User != nil {
			return nil, fault.New(fault.Invalid, "the queue URL %s holds user info; Kafka's SASL is not configured by URL", u.Redacted())
		}
		if err := known(u, q, "prefix", "group", "partitions"); err != nil {
			return nil, err
		}
		o := kafkaq.Options{Brokers: strings.Split(u.Host, ","), Prefix: q.Get("prefix"), Group: q.Get("group"), Logger: log}
		n, err := intParam(u, q, "partitions", 1, 1024)
		if err != nil {
			return nil, err
		}
		o.Partitions = int32(n)
		return opened(kafkaq.Open(ctx, o))
	default:
		return nil, fault.New(fault.Invalid, "queue URL scheme %q is not one sluice speaks; want nats:// or kafka://", u.Scheme)
	}
}

// opened returns a queue that failed to open as a nil interface: returned
// as is, the nil *natsq.Queue or *kafkaq.Queue would be a non-nil
// queue.Queue, and a caller's "close what was opened" would call Close on a
// nil pointer.
func opened[Q queue.Queue](q Q, err error) (queue.Queue, error) {
	if err != nil {
		return nil, err
	}
	return q, nil
}

func known(u *url.URL, q url.Values, names ...string) error {
	for k := range q {
		if !slices.Contains(names, k) {
			return fault.New(fault.Invalid, "the queue URL %s has parameter %q; %s URLs take %s", u.Redacted(), k, u.Scheme, strings.Join(names, ", "))
		}
	}
	return nil
}

// intParam reads an optional integer parameter in lo..hi (0 when absent).
func intParam(u *url.URL, q url.Values, name string, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fault.New(fault.Invalid, "the queue URL %s has %s=%q; want a whole number from %d to %d", u.Redacted(), name, s, lo, hi)
	}
	return n, nil
}
