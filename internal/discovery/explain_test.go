package discovery

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	ix := New()
	if err := ix.Upsert(
		Entry{Kind: KindOperation, ID: "fleet.listCars", Name: "listCars", Summary: "List the cars of the fleet"},
		Entry{Kind: KindOperation, ID: "weather.getForecast", Name: "getForecast", Summary: "Weather forecast for a city"},
		Entry{Kind: KindOperation, ID: "issues.createIssue", Name: "createIssue", Summary: "Report a bug"},
		Entry{Kind: KindOperation, ID: "support.getDesk", Name: "getDesk", Summary: "Get a help desk", Parameters: []Param{{Name: "email", Description: "the address"}}},
	); err != nil {
		t.Fatal(err)
	}
	got := map[string]QueryTerm{}
	for _, qt := range ix.Explain("which automobiles have a defect, rain, helpdesk jane@acme.com") {
		if _, dup := got[qt.Term]; dup {
			t.Fatalf("%q twice", qt.Term)
		}
		got[qt.Term] = qt
	}
	for _, want := range []QueryTerm{
		{Term: "automobil", Weight: 1, Via: ViaQuery, DF: 0},
		{Term: "car", Weight: DefaultWordNet.Weight, Via: ViaWordNet, From: "automobiles", DF: 1},
		{Term: "weather", Weight: DefaultWordVectors.Weight, Via: ViaWordVectors, From: "rain", DF: 1},
		{Term: "bug", Weight: 0.5, Via: ViaSynonym, From: "defect", DF: 1},
		{Term: "list", Weight: 0.5, Via: ViaQuestion, From: "which", DF: 1},
		{Term: "email", Weight: 0.5, Via: ViaValue, DF: 1},
		{Term: "desk", Weight: 0.5, Via: ViaCompound, From: "helpdesk", DF: 1},
	} {
		if got[want.Term] != want {
			t.Errorf("%s: got %+v, want %+v", want.Term, got[want.Term], want)
		}
	}
	// The email address's characters are not searched.
	if _, ok := got["jane"]; ok {
		t.Errorf("jane searched: %v", got)
	}
	// The reasons are written by name.
	b, err := json.Marshal(got["weather"])
	if err != nil || !strings.Contains(string(b), `"via":"word_vectors"`) || !strings.Contains(string(b), `"from":"rain"`) {
		t.Fatalf("%s %v", b, err)
	}
	// And read back.
	var back QueryTerm
	if err := json.Unmarshal(b, &back); err != nil || back != got["weather"] {
		t.Fatalf("read back %+v: %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"via":"telepathy"}`), &back); err == nil || !strings.Contains(err.Error(), "telepathy") {
		t.Fatalf("unknown reason: %v", err)
	}
	// Nothing to search by: nothing to explain.
	if got := ix.Explain("kind:operation the"); got != nil {
		t.Fatalf("%+v", got)
	}
	for v := ViaQuery; v <= ViaWordVectors; v++ {
		if v.String() == "unknown" {
			t.Errorf("via %d has no name", v)
		}
	}
}
