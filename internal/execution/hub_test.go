package execution

import "testing"

// A subscriber that falls behind is cut off (its channel closed) instead of
// blocking the publisher; the others keep receiving.
func TestHubCutsALaggingSubscriber(t *testing.T) {
	h := newHub()
	slow := h.subscribe("e1")
	fast := h.subscribe("e1")
	other := h.subscribe("e2")
	got := 0
	for i := range hubBuffer + 10 {
		h.publish("e1", storedFrame{Seq: int64(i + 1)})
		select { // the fast one keeps up
		case <-fast.ch:
			got++
		default:
		}
	}
	if got != hubBuffer+10 {
		t.Fatalf("the reading subscriber got %d of %d frames", got, hubBuffer+10)
	}
	n := 0
	for range slow.ch { // closed after what it buffered
		n++
	}
	if n != hubBuffer {
		t.Fatalf("the lagging subscriber kept %d frames, want its %d-frame buffer then a close", n, hubBuffer)
	}
	if h.count("e1") != 1 || h.count("e2") != 1 {
		t.Fatalf("subscribers left: e1 %d, e2 %d", h.count("e1"), h.count("e2"))
	}
	h.unsubscribe("e1", fast)
	h.unsubscribe("e2", other)
	h.unsubscribe("e2", other) // twice: no panic
	if h.count("e1") != 0 || h.count("e2") != 0 {
		t.Fatal("unsubscribe left subscribers")
	}
}
