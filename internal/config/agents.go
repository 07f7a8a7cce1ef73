package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Agents configures how HTTP task agents are called: through a queue, the
// gateway enqueuing and a worker pool calling the agent (docs/scale-out.md).
type Agents struct {
	// Queue is the queue of agent tasks: "" for the store's own (the local
	// queue with SQLite, the PostgreSQL queue with PostgreSQL), or a
	// nats://host:port[,host:port...] (JetStream) or
	// kafka://host:port[,host:port...] URL shared with `sluice worker`s.
	Queue string `yaml:"queue" redact:"url"`
	// Workers is the size of this process's pool of agent task workers; 0
	// runs none (the tasks are for `sluice worker` processes).
	Workers int `yaml:"workers"`
	// MonitoringTopic receives a RUNNING and then a COMPLETED or FAILED
	// update per task and agent workflow step; "": none are published.
	MonitoringTopic string `yaml:"monitoring_topic"`
	// MaxWait bounds how long a caller waits for a task's result.
	MaxWait time.Duration `yaml:"max_wait"`
}

// QueueKind is the scheme of Queue: "" (the store's), "nats" or "kafka".
func (a Agents) QueueKind() string {
	if a.Queue == "" {
		return ""
	}
	scheme, _, _ := strings.Cut(a.Queue, "://")
	return strings.ToLower(scheme)
}

// Redacted is Queue with any password replaced by "xxxxx".
func (a Agents) Redacted() string {
	u, err := url.Parse(a.Queue)
	if err != nil {
		if strings.Contains(a.Queue, "@") {
			return "[unparsable URL]"
		}
		return a.Queue
	}
	return u.Redacted()
}

// String, GoString and MarshalJSON show the queue URL redacted: it may hold
// a password, and a configuration gets printed.
func (a Agents) String() string {
	return fmt.Sprintf("{Queue:%s Workers:%d MonitoringTopic:%s MaxWait:%s}", a.Redacted(), a.Workers, a.MonitoringTopic, a.MaxWait)
}

// GoString is String.
func (a Agents) GoString() string { return "config.Agents" + a.String() }

// MarshalJSON writes the fields with the queue URL redacted.
func (a Agents) MarshalJSON() ([]byte, error) {
	type plain Agents
	p := plain(a)
	p.Queue = a.Redacted()
	return json.Marshal(p)
}

func (d *decoder) validateAgents(a Agents) {
	d.intIn("agents.workers", int64(a.Workers), 0, 1024)
	d.durationIn("agents.max_wait", a.MaxWait, time.Second, 24*time.Hour)
	if a.Queue != "" {
		u, err := url.Parse(a.Queue)
		switch {
		case err != nil:
			// The URL may hold a password: the message does not repeat it.
			d.bad("agents.queue", "is not a URL")
		case u.Scheme != "nats" && u.Scheme != "kafka":
			d.bad("agents.queue", "want nats://HOST:PORT or kafka://HOST:PORT (or empty for the store's queue), got scheme %q", u.Scheme)
		case u.Host == "":
			d.bad("agents.queue", "names no host")
		}
	}
	if len(a.MonitoringTopic) > 256 || strings.ContainsFunc(a.MonitoringTopic, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		d.bad("agents.monitoring_topic", "want a topic name of at most 256 bytes without control characters")
	}
}
