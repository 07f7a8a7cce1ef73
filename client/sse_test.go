package client

import (
	"errors"
	"strings"
	"testing"
)

func TestReadSSE(t *testing.T) {
	in := ": heartbeat\r\nid: 1\r\nevent: frame\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n" +
		"retry: 10\nevent: end\ndata:{\"ended\":true}\n\n" +
		"data: tail without its blank line"
	var got []SSEEvent
	if err := ReadSSE(strings.NewReader(in), 1<<10, func(e SSEEvent) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []SSEEvent{{ID: "1", Event: "frame", Data: "{\"a\":\n1}"}, {ID: "1", Event: "end", Data: `{"ended":true}`}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v", got)
	}
	// An event over the bound is an error naming the line, not a large allocation.
	err := ReadSSE(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 64, func(SSEEvent) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("oversized event: %v", err)
	}
	err = ReadSSE(strings.NewReader("data: a\ndata: "+strings.Repeat("x", 40)+"\ndata: "+strings.Repeat("y", 40)+"\n\n"), 64, func(SSEEvent) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("an event of many lines over the bound: %v", err)
	}
	// fn's error stops the stream and is returned.
	boom := errors.New("boom")
	if err := ReadSSE(strings.NewReader("data: 1\n\ndata: 2\n\n"), 64, func(SSEEvent) error { return boom }); err != boom {
		t.Fatalf("fn's error: %v", err)
	}
}

func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("id: 1\nevent: frame\ndata: {}\n\n"))
	f.Add([]byte(": c\r\ndata: a\rdata: b\r\n\r\n"))
	f.Add([]byte("data\n\nid: \x00\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		err := ReadSSE(strings.NewReader(string(b)), 256, func(e SSEEvent) error {
			n++
			if len(e.Data) > 256 || e.Event == "" {
				t.Fatalf("event %+v breaks the bound or has no name", e)
			}
			return nil
		})
		if err == nil && n > len(b) {
			t.Fatalf("%d events from %d bytes", n, len(b))
		}
	})
}
