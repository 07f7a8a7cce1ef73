package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"
)

// mcpDrainLimit bounds the wait for answers once a host's input has ended.
const mcpDrainLimit = 5 * time.Minute

// mcpStdio is stdin and stdout of `sluice mcp --stdio`: one JSON-RPC message
// per line. When stdin ends it waits until every request it read has its
// answer written (or ctx ends, or mcpDrainLimit passes) before the session
// sees the end: a host that writes its requests and closes its end reads
// every answer.
type mcpStdio struct {
	ctx     context.Context
	in      *bufio.Reader
	pending []byte
	out     io.Writer

	mu      sync.Mutex
	owed    map[string]bool // ids of requests read and not yet answered
	changed chan struct{}   // closed and replaced at each answer
}

func newMCPStdio(ctx context.Context, in io.Reader, out io.Writer) *mcpStdio {
	return &mcpStdio{ctx: ctx, in: bufio.NewReaderSize(in, 64<<10), out: out, owed: map[string]bool{}, changed: make(chan struct{})}
}

func (s *mcpStdio) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		line, err := s.in.ReadBytes('\n')
		if len(line) == 0 {
			if errors.Is(err, io.EOF) {
				s.waitAnswered()
			}
			return 0, err
		}
		s.note(line, true)
		s.pending = line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

func (s *mcpStdio) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		s.note(line, false)
	}
	return s.out.Write(p)
}

// Close leaves stdin and stdout to the process.
func (s *mcpStdio) Close() error { return nil }

// note keeps count of what is owed: a request read (an id and a method) is
// owed its answer, a response written (an id, no method) pays it.
func (s *mcpStdio) note(line []byte, read bool) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &head) != nil || len(head.ID) == 0 || string(head.ID) == "null" {
		return
	}
	id := string(head.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case read && head.Method != "":
		s.owed[id] = true
	case !read && head.Method == "" && s.owed[id]:
		delete(s.owed, id)
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

func (s *mcpStdio) waitAnswered() {
	limit := time.NewTimer(mcpDrainLimit)
	defer limit.Stop()
	for {
		s.mu.Lock()
		n, changed := len(s.owed), s.changed
		s.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-s.ctx.Done():
			return
		case <-limit.C:
			return
		}
	}
}
