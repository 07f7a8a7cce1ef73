package bridge

import "time"

// ResultMargin is what a result is kept beyond its callers' longest wait
// before the queue may drop it unread. The caller enqueued its task before
// the result was published, so at publish + max wait it has given up; the
// margin only covers clocks of machines that disagree (the worker stamps the
// expiry, another process sweeps).
const ResultMargin = 5 * time.Minute

// ResultTTL is how long a published result may wait for its reader: the
// callers' maxWait (0: DefaultMaxWait) plus ResultMargin. Past it, a result
// still in the queue belongs to a caller that gave up or a gateway that is
// gone (its own reply topic, which nobody reads again), and the table queues
// delete it.
func ResultTTL(maxWait time.Duration) time.Duration {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	return maxWait + ResultMargin
}
