package datamodel_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sluicehq/sluice/internal/datamodel"
	"github.com/sluicehq/sluice/internal/fault"
)

// TestSizeBoundsJSON: the estimate of data held in an array is never below
// its compact JSON length, so a data budget bounds what the data costs once
// encoded too.
func TestSizeBoundsJSON(t *testing.T) {
	for _, s := range []string{
		`null`, `true`, `0`, `-1.5e300`, `""`, `"a string with \"quotes\" and \u00e9"`, `[]`, `{}`,
		`[1,2,3]`, `{"a":{"b":[null,false,"x"]}}`, smallObjects(100), wideObject(100),
	} {
		var v any
		if err := json.Unmarshal([]byte("["+s+"]"), &v); err != nil {
			t.Fatal(err)
		}
		compact, _ := json.Marshal(v)
		if got := datamodel.Size(v); got < int64(len(compact)) {
			t.Errorf("Size(%.40s) = %d, below its %d JSON bytes", s, got, len(compact))
		}
	}
}

// TestSizeCountsSharedValuesAgain: a value referenced twice counts twice,
// as it is written twice when the data is encoded.
func TestSizeCountsSharedValuesAgain(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(smallObjects(10)), &v)
	one := datamodel.Size(v)
	if two := datamodel.Size([]any{v, v}); two != 2*one+datamodel.ArraySize(2) {
		t.Errorf("two references: %d, want %d", two, 2*one+datamodel.ArraySize(2))
	}
}

func TestBudget(t *testing.T) {
	b := datamodel.NewBudget(100)
	if err := b.Charge("a", 60); err != nil || b.Over() {
		t.Fatalf("60 of 100: %v", err)
	}
	err := b.Charge("b", 50)
	fe, ok := fault.As(err)
	if !ok || fe.SpecType() != fault.DataError || fe.Kind != fault.TooLarge || fe.OperationID != "b" ||
		fe.Details["dataBudgetBytes"] != int64(100) || fe.Details["reachedBytes"] != int64(110) {
		t.Fatalf("110 of 100: %v", err)
	}
	if !strings.Contains(fe.Message, `"b"`) || !strings.Contains(fe.Message, "110") || !strings.Contains(fe.Message, "100") {
		t.Errorf("message %q names not the operation, the size reached and the budget", fe.Message)
	}
	if !b.Over() || b.Charge("c", 1) == nil {
		t.Error("a budget that went over lets a later charge through")
	}

	var none *datamodel.Budget // outside an engine: no limit, no count
	if none.Charge("x", 1<<40) != nil || none.Over() || none.Used() != 0 {
		t.Error("a nil budget limits")
	}
	unlimited := datamodel.NewBudget(-1)
	if unlimited.Charge("x", 1<<40) != nil || unlimited.Used() != 1<<40 {
		t.Error("a budget without a limit does not count, or refuses")
	}
}

// TestBudgetConcurrentCharges: concurrent loop iterations charge one budget.
func TestBudgetConcurrentCharges(t *testing.T) {
	b := datamodel.NewBudget(0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				_ = b.Charge("x", 3)
			}
		})
	}
	wg.Wait()
	if b.Used() != 8*1000*3 {
		t.Errorf("used %d, want %d", b.Used(), 8*1000*3)
	}
}

func smallObjects(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user-%d","active":%v,"score":%g}`, i, i, i%2 == 0, float64(i%1000)/7)
	}
	b.WriteByte(']')
	return b.String()
}

func wideObject(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"key-%d":[%d,"v"]`, i, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkHeapPerJSONByte measures what decoded data costs on the heap per
// JSON byte (300k small objects, the shape) and how close Size's
// estimate is: heap-B/json-B and estimate/heap are reported.
func BenchmarkHeapPerJSONByte(b *testing.B) {
	doc := []byte(smallObjects(300000))
	var heap, est float64
	for b.Loop() {
		before := heapInUse()
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
		after := heapInUse()
		heap = float64(after - before)
		est = float64(datamodel.Size(v))
		runtime.KeepAlive(v)
	}
	b.ReportMetric(heap/float64(len(doc)), "heap-B/json-B")
	b.ReportMetric(est/heap, "estimate/heap")
}

// BenchmarkSize20 is the cost of sizing the 20 items of the 5-operation data
// workflow benchmark: what the budget adds per output of that size.
func BenchmarkSize20(b *testing.B) {
	items := make([]any, 20)
	for i := range items {
		items[i] = map[string]any{"name": fmt.Sprintf("u%d", i), "status": "active", "points": float64(i)}
	}
	var n int64
	for b.Loop() {
		n += datamodel.Size(items)
	}
	if n == 0 {
		b.Fatal("no size")
	}
}

// A value whose parts share one another is small in memory but has 2^depth
// paths: a bounded walk stops once it passes its limit, so charging such a
// value to a budget fails with the DataError instead of walking 2^60 paths.
func TestSizeUpToStopsOnSharedDepth(t *testing.T) {
	v := any([]any{1.0})
	for range 60 {
		v = []any{v, v} // sixty small arrays; 2^60 paths
	}
	const limit = 1 << 20
	n := datamodel.SizeUpTo(v, limit)
	if n <= limit || n > limit+1024 {
		t.Fatalf("SizeUpTo = %d, want just over %d", n, limit)
	}
	small := []any{"ab", map[string]any{"k": 1.0}}
	if got, want := datamodel.SizeUpTo(small, limit), datamodel.Size(small); got != want {
		t.Fatalf("under the limit SizeUpTo = %d, Size = %d", got, want)
	}

	b := datamodel.NewBudget(limit)
	err := b.ChargeValue("merge", v)
	if fe, ok := fault.As(err); !ok || fe.Type != fault.DataError {
		t.Fatalf("charging a value of 2^60 paths: %v, want a DataError", err)
	}
}
