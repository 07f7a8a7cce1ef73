package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// SSEEvent is one Server-Sent Event: its id, its event name ("message"
// when none is given) and its data lines joined with "\n".
type SSEEvent struct {
	ID    string
	Event string
	Data  string
}

// errStop ends ReadSSE without an error.
var errStop = errors.New("stop")

// ReadSSE reads Server-Sent Events (the WHATWG event stream format) from r
// and calls fn for each event that has data, until r ends, fn returns an
// error (returned, except the internal stop), or an event grows past
// maxEvent bytes. Comments (heartbeats) and retry fields are skipped.
func ReadSSE(r io.Reader, maxEvent int, fn func(SSEEvent) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEvent+1)
	sc.Split(scanSSELines)
	var ev SSEEvent
	var data strings.Builder
	hasData, size, line := false, 0, 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 { // a blank line dispatches the event
			if hasData {
				ev.Data = data.String()
				if ev.Event == "" {
					ev.Event = "message"
				}
				if err := fn(ev); err != nil {
					if err == errStop {
						return nil
					}
					return err
				}
			}
			ev, hasData, size = SSEEvent{ID: ev.ID}, false, 0 // the id persists, per the format
			data.Reset()
			continue
		}
		if b[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(b, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		size += len(b)
		if size > maxEvent {
			return fmt.Errorf("event stream line %d: an event is larger than %d bytes", line, maxEvent)
		}
		switch string(field) {
		case "event":
			ev.Event = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case "id":
			if !bytes.ContainsRune(value, 0) {
				ev.ID = string(value)
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("event stream line %d: a line is longer than %d bytes", line+1, maxEvent)
		}
		return fmt.Errorf("event stream line %d: %w", line+1, err)
	}
	return nil // an event not ended by a blank line is dropped, per the format
}

// scanSSELines splits at "\r\n", "\n" or "\r", the stream format's line ends.
func scanSSELines(data []byte, atEOF bool) (int, []byte, error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // a "\n" may follow
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
