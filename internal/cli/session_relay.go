package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// relayGrace is how long past the latest call's own timeout the relay still
// waits for its answer (the server's answer takes a moment to arrive).
const relayGrace = 5 * time.Second

// relaySession copies lines between stdin/stdout and the server's WebSocket.
// When stdin ends, the answers still owed are waited for: an agent host that
// writes its calls and closes its end reads every answer. The wait ends when
// every request sent has its answer, the server ends the session, ctx ends,
// or (when every call waited for gave a timeout) the latest timeout passed.
func relaySession(ctx context.Context, io Stdio, url string) error {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return fail(ExitFailed, "connect to %s: %v", url, err)
	}
	ws.SetReadLimit(16 << 20)
	// The reader goroutine writes to io.Out: the relay returns only once it
	// has stopped, so that no answer is written (or half written) after the
	// caller takes the output.
	readerDone := make(chan struct{})
	defer func() {
		ws.Close(websocket.StatusNormalClosure, "")
		<-readerDone
	}()
	owed := newOwedAnswers()
	inputDone := make(chan error, 1)
	serverDone := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(io.In)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			if len(strings.TrimSpace(sc.Text())) == 0 {
				continue
			}
			owed.sent(sc.Bytes())
			if err := ws.Write(ctx, websocket.MessageText, sc.Bytes()); err != nil {
				inputDone <- err
				return
			}
		}
		inputDone <- sc.Err()
	}()
	go func() {
		defer close(readerDone)
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				serverDone <- nil // the server ended the session
				return
			}
			line := b
			if len(line) == 0 || line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			_, err = io.Out.Write(line)
			// Counted once written: the relay may end as soon as nothing is
			// owed, and the last answer must be out by then.
			owed.received(b)
			if err != nil {
				serverDone <- err
				return
			}
		}
	}()
	select {
	case err := <-serverDone:
		if err != nil {
			return fail(ExitFailed, "session: %v", err)
		}
		return nil
	case err := <-inputDone:
		if err != nil {
			return fail(ExitFailed, "session: %v", err)
		}
	}
	// End of input: wait for what is owed.
	for {
		changed, n, deadline := owed.state()
		if n == 0 {
			return nil
		}
		if over, err := waitOwed(ctx, changed, serverDone, deadline); over {
			return err
		}
	}
}

// waitOwed waits for the next answer; over says the relay ends, with err.
func waitOwed(ctx context.Context, changed <-chan struct{}, serverDone <-chan error, deadline time.Time) (over bool, err error) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline.Add(relayGrace)))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-changed:
		return false, nil
	case err := <-serverDone:
		if err != nil {
			return true, fail(ExitFailed, "session: %v", err)
		}
		return true, nil
	case <-ctx.Done():
		return true, nil
	case <-timeout:
		return true, fail(ExitFailed, "session: answers did not arrive within their calls' timeouts")
	}
}

// owedAnswers are the requests sent whose answers have not come back, by
// message id, with the time each call's own timeout ends (zero: none given).
type owedAnswers struct {
	mu      sync.Mutex
	calls   map[string]time.Time
	changed chan struct{} // closed and replaced at each change
}

func newOwedAnswers() *owedAnswers {
	return &owedAnswers{calls: map[string]time.Time{}, changed: make(chan struct{})}
}

// relayHead is what the relay reads of a message.
type relayHead struct {
	Type    string  `json:"type"`
	ID      string  `json:"id"`
	ReqID   string  `json:"req_id"`
	Timeout float64 `json:"timeout"`
}

// sent notes a line the agent sent: a request (…/req, ping, shutdown) is
// owed an answer. A line that does not decode is the server's to refuse.
func (o *owedAnswers) sent(line []byte) {
	var h relayHead
	if json.Unmarshal(line, &h) != nil || h.ID == "" {
		return
	}
	if !strings.HasSuffix(h.Type, "/req") && h.Type != "ping" && h.Type != "shutdown" {
		return
	}
	var deadline time.Time
	if h.Timeout > 0 && h.Type == "tool/call/req" {
		deadline = time.Now().Add(time.Duration(h.Timeout * float64(time.Second)))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls[h.ID] = deadline
	o.signal()
}

// received notes a line of the server: any message with req_id but an
// event (tool/event, invoke/event) is a request's final answer.
func (o *owedAnswers) received(line []byte) {
	var h relayHead
	if json.Unmarshal(line, &h) != nil || h.ReqID == "" || strings.HasSuffix(h.Type, "event") {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.calls[h.ReqID]; ok {
		delete(o.calls, h.ReqID)
		o.signal()
	}
}

func (o *owedAnswers) signal() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// state is a channel closed at the next change, the number of answers owed
// and, when every one has a timeout of its own, the latest.
func (o *owedAnswers) state() (<-chan struct{}, int, time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var latest time.Time
	for _, d := range o.calls {
		if d.IsZero() {
			return o.changed, len(o.calls), time.Time{}
		}
		if d.After(latest) {
			latest = d
		}
	}
	return o.changed, len(o.calls), latest
}
