package kafkaq

import (
	"context"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// poll reads records into memory until the queue closes.
func (q *Queue) poll(ctx context.Context) {
	defer close(q.polls)
	for ctx.Err() == nil {
		fs := q.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		fs.EachError(func(t string, p int32, err error) {
			q.log.Warn("kafkaq: fetch failed", "topic", t, "partition", p, "err", err)
		})
		fs.EachRecord(func(r *kgo.Record) { q.take(r) })
	}
}

// take turns a record into an entry.
func (q *Queue) take(r *kgo.Record) {
	e := &entry{src: tp{r.Topic, r.Partition}, offset: r.Offset, payload: r.Value}
	if e.payload == nil {
		e.payload = []byte{}
	}
	for _, h := range r.Headers {
		v := string(h.Value)
		switch h.Key {
		case hdrTopic:
			e.topic = v
		case hdrID:
			e.id = v
		case hdrEnqueued:
			e.enqueuedAt, _ = time.Parse(time.RFC3339Nano, v)
		case hdrNotBefore:
			e.due, _ = time.Parse(time.RFC3339Nano, v)
		case hdrAttempts:
			e.attempts, _ = strconv.Atoi(v)
		case hdrGroup:
			e.group = v
		default:
			e.trace.Set(h.Key, v) // traceparent, tracestate, baggage; others ignored
		}
	}
	if e.topic == "" || e.id == "" {
		// Not written by kafkaq: the offset is done, the record ignored.
		q.log.Warn("kafkaq: a record without the sluice headers", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset)
		e.topic, e.id = "\x00foreign", strconv.FormatInt(r.Offset, 10)
		q.st.add(e)
		q.st.mu.Lock()
		if q.st.items[e.topic][e.id] == e {
			q.st.finishLocked(e)
		}
		q.st.mu.Unlock()
		return
	}
	if e.enqueuedAt.IsZero() {
		e.enqueuedAt = r.Timestamp
	}
	e.enqueuedAt = e.enqueuedAt.UTC()
	if e.due.IsZero() {
		e.due = e.enqueuedAt // oldest first, by enqueue time
	}
	q.st.add(e)
}

func (q *Queue) assigned(_ context.Context, _ *kgo.Client, m map[string][]int32) {
	q.st.assign(flatten(m))
}

// revoked commits what is done of the partitions leaving, then forgets them.
func (q *Queue) revoked(ctx context.Context, _ *kgo.Client, m map[string][]int32) {
	q.commit(ctx)
	q.st.revoke(flatten(m))
}

func (q *Queue) lost(_ context.Context, _ *kgo.Client, m map[string][]int32) {
	q.st.revoke(flatten(m))
}

func flatten(m map[string][]int32) []tp {
	var out []tp
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, tp{t, p})
		}
	}
	return out
}

func (q *Queue) commitLoop(ctx context.Context) {
	t := time.NewTicker(q.o.CommitEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c, cancel := context.WithTimeout(ctx, q.o.Timeout)
			q.commit(c)
			cancel()
		}
	}
}

// commit commits the lowest unfinished offset of each changed partition.
func (q *Queue) commit(ctx context.Context) {
	offs := q.st.commitOffsets()
	if len(offs) == 0 {
		return
	}
	m := map[string]map[int32]kgo.EpochOffset{}
	for p, off := range offs {
		if m[p.topic] == nil {
			m[p.topic] = map[int32]kgo.EpochOffset{}
		}
		m[p.topic][p.partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
	}
	q.cl.CommitOffsetsSync(ctx, m, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, _ *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			q.log.Warn("kafkaq: commit failed", "err", err)
		}
	})
}
