package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// rpcDrainLimit bounds the wait for answers once a host's (or editor's)
// input has ended.
const rpcDrainLimit = 5 * time.Minute

// rpcMaxMessage bounds one message read from stdin (a line): past it the
// session ends rather than hold the line in memory. It is above what the
// SDKs read (acp-go-sdk: 10 MiB) and what sluice reads of a server's frames.
const rpcMaxMessage = 64 << 20

// rpcStdio is stdin and stdout of `sluice mcp --stdio` and `sluice acp
// --stdio`: one JSON-RPC message per line. When stdin ends it waits until
// every request it read has its answer written (or ctx ends, or
// rpcDrainLimit passes) before the session sees the end: a host that writes
// its requests and closes its end reads every answer.
type rpcStdio struct {
	ctx     context.Context
	in      *bufio.Reader
	pending []byte
	out     io.Writer
	max     int // rpcMaxMessage, smaller in tests

	mu      sync.Mutex
	owed    map[string]bool // ids of requests read and not yet answered
	changed chan struct{}   // closed and replaced at each answer
}

func newRPCStdio(ctx context.Context, in io.Reader, out io.Writer) *rpcStdio {
	return &rpcStdio{ctx: ctx, in: bufio.NewReaderSize(in, 64<<10), out: out, max: rpcMaxMessage, owed: map[string]bool{}, changed: make(chan struct{})}
}

// readLine reads one line of at most s.max bytes.
func (s *rpcStdio) readLine() ([]byte, error) {
	var line []byte
	for {
		frag, err := s.in.ReadSlice('\n')
		if len(line)+len(frag) > s.max {
			return nil, fmt.Errorf("stdin: a message over %d bytes; the session ends", s.max)
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

func (s *rpcStdio) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		line, err := s.readLine()
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

func (s *rpcStdio) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		s.note(line, false)
	}
	return s.out.Write(p)
}

// Close leaves stdin and stdout to the process.
func (s *rpcStdio) Close() error { return nil }

// note keeps count of what is owed: a request read (an id and a method) is
// owed its answer, a response written (an id, no method) pays it.
func (s *rpcStdio) note(line []byte, read bool) {
	// A host's message may hold its keys in any order, and is small; what
	// sluice writes is the go-sdk's, id first, and may be large.
	head := jsonrpcHead
	if read {
		head = wholeHead
	}
	id, method := head(line)
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case read && method != "":
		s.owed[id] = true
	case !read && method == "" && s.owed[id]:
		delete(s.owed, id)
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

// jsonrpcHead is the id (as JSON; "" for none or null) and method of a
// JSON-RPC message. It reads the keys before the first params, result or
// error, where the go-sdk writes id and method, so a large answer is not
// decoded twice; a message without an id there is decoded whole.
func jsonrpcHead(line []byte) (id, method string) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", ""
		}
		switch key {
		case "id":
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return "", ""
			}
			if string(raw) != "null" {
				id = string(raw)
			}
		case "method":
			if dec.Decode(&method) != nil {
				return "", ""
			}
		case "jsonrpc":
			var v string
			if dec.Decode(&v) != nil {
				return "", ""
			}
		default: // params, result or error: what comes after is not looked at
			if id != "" {
				return id, method
			}
			return wholeHead(line)
		}
	}
	return id, method
}

// wholeHead is jsonrpcHead by decoding the whole message.
func wholeHead(line []byte) (id, method string) {
	var whole struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &whole) != nil || len(whole.ID) == 0 || string(whole.ID) == "null" {
		return "", ""
	}
	return string(whole.ID), whole.Method
}

func (s *rpcStdio) waitAnswered() {
	limit := time.NewTimer(rpcDrainLimit)
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
