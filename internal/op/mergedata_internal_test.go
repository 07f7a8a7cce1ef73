package op

import (
	"hash/maphash"
	"math"
	"testing"
)

func TestHashJSONDeepEqualValuesMeet(t *testing.T) {
	seed := maphash.MakeSeed()
	same := [][2]any{
		{1.0, 1},
		{math.Copysign(0, -1), 0.0},
		{map[string]any{"a": 1.0, "b": []any{"x"}}, map[string]any{"b": []any{"x"}, "a": int64(1)}},
	}
	for _, p := range same {
		if hashJSON(seed, p[0]) != hashJSON(seed, p[1]) {
			t.Errorf("%v and %v hash apart", p[0], p[1])
		}
	}
	apart := [][2]any{
		{"1", 1.0}, {nil, false}, {[]any{}, map[string]any{}}, {[]any{1.0, 2.0}, []any{2.0, 1.0}},
		{map[string]any{"a": "b"}, map[string]any{"b": "a"}}, {[]any{[]any{}}, []any{}},
	}
	for _, p := range apart {
		if hashJSON(seed, p[0]) == hashJSON(seed, p[1]) {
			t.Errorf("%v and %v hash alike", p[0], p[1])
		}
	}
}

func TestValueSetSurvivesCollisions(t *testing.T) {
	s := newValueSet(maphash.MakeSeed())
	v := map[string]any{"id": 1.0}
	// Plant a different value under v's hash, as a collision would.
	s.first[s.hash(v)] = "impostor"
	if !s.add(v) {
		t.Fatal("v is new despite sharing a hash")
	}
	if s.add(map[string]any{"id": 1}) {
		t.Error("a deep-equal value was added twice")
	}
	if !s.hasHashed(s.hash(v), v) || s.hasHashed(s.hash(v), map[string]any{"id": 2.0}) {
		t.Error("membership is wrong on a shared hash")
	}
}
