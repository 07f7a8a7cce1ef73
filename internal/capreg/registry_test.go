package capreg_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluicehq/sluice/internal/capreg"
	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
	"github.com/sluicehq/sluice/protocol/a2s"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

func TestPublishGetVersionsList(t *testing.T) {
	r := newRegistry(t, capreg.Options{})
	for _, v := range []string{"1.0.0", "2.0.0", "1.4.2", "1.5.0-beta.1", "1.4.10-rc.1"} {
		publish(t, r, "core/weather", doc(t, "Weather", v))
	}
	e := publish(t, r, "", doc(t, "Hello", "0.1.0"))
	if e.Namespace != capreg.DefaultNamespace || e.ID != "Hello" || e.Version != "0.1.0" || e.Type != "atomic" || e.Level != "basic" ||
		e.AuditStatus != "audited" || e.Description != "Echoes Hello 0.1.0" || e.Format != "yaml" || e.PublishedBy != "alice" ||
		e.PublishedAt.IsZero() || !strings.HasPrefix(e.Checksum, "sha256:") || len(e.Document) == 0 {
		t.Fatalf("published entry: %+v", e)
	}

	for _, tc := range []struct{ constraint, want string }{
		{"", "2.0.0"}, {"latest", "2.0.0"}, {"*", "2.0.0"},
		{"^1.0.0", "1.4.2"}, {"~1.0", "1.0.0"}, {"1.4.2", "1.4.2"}, {">=1.0.0 <1.4.2", "1.0.0"},
		{"1.5.0-beta.1", "1.5.0-beta.1"}, {"^1.5.0-beta.0", "1.5.0-beta.1"}, {"^1.4.10-rc.0", "1.4.10-rc.1"},
		{"<1.0.0 || >=2", "2.0.0"},
	} {
		got, err := r.Get(ctx, "core/weather", "Weather", tc.constraint)
		if err != nil {
			t.Errorf("Get %q: %v", tc.constraint, err)
			continue
		}
		if got.Version != tc.want || len(got.Document) == 0 {
			t.Errorf("Get %q: %s, want %s", tc.constraint, got.Version, tc.want)
		}
	}
	_, err := r.Get(ctx, "core/weather", "Weather", "^3.0.0")
	fe := wantKind(t, err, fault.NotFound, "a constraint nothing meets")
	if !strings.Contains(fe.Message, "1.0.0, 1.4.2, 1.4.10-rc.1, 1.5.0-beta.1, 2.0.0") || !strings.Contains(fe.Message, `"^3.0.0"`) {
		t.Errorf("the NotFound does not list the versions in order: %s", fe.Message)
	}
	_, err = r.Get(ctx, "core/weather", "Nothing", "")
	wantKind(t, err, fault.NotFound, "a capability never published")
	_, err = r.Get(ctx, "core/weather", "Weather", "^^1")
	fe = wantKind(t, err, fault.Invalid, "a constraint that does not parse")
	if fe.Details["field"] != "version" {
		t.Errorf("the bad constraint does not name the field: %+v", fe)
	}
	_, err = r.Get(ctx, "Core", "Weather", "")
	wantKind(t, err, fault.Invalid, "a bad namespace")

	vs, err := r.Versions(ctx, "core/weather", "Weather")
	must(t, err)
	var names []string
	for _, v := range vs {
		if len(v.Document) != 0 {
			t.Fatalf("a listed version carries its document: %+v", v)
		}
		names = append(names, v.Version)
	}
	if strings.Join(names, " ") != "1.0.0 1.4.2 1.4.10-rc.1 1.5.0-beta.1 2.0.0" {
		t.Fatalf("versions: %v", names)
	}
	_, err = r.Versions(ctx, "core/weather", "Nothing")
	wantKind(t, err, fault.NotFound, "versions of nothing")

	list, next, err := r.List(ctx, "", store.Page{})
	must(t, err)
	if next != "" || len(list) != 2 || list[0].Namespace != "core/weather" || list[0].Version != "2.0.0" || list[0].Versions != 5 ||
		list[1].ID != "Hello" || list[1].Versions != 1 || len(list[0].Document) != 0 {
		t.Fatalf("list: %+v next %q", list, next)
	}
	list, next, err = r.List(ctx, "", store.Page{Limit: 1})
	must(t, err)
	if len(list) != 1 || list[0].ID != "Weather" || next == "" {
		t.Fatalf("first page: %+v %q", list, next)
	}
	list, next, err = r.List(ctx, "", store.Page{Limit: 1, Cursor: next})
	must(t, err)
	if len(list) != 1 || list[0].ID != "Hello" || next != "" {
		t.Fatalf("second page: %+v %q", list, next)
	}
	list, _, err = r.List(ctx, "core", store.Page{})
	must(t, err)
	if len(list) != 1 || list[0].ID != "Weather" {
		t.Fatalf("list core: %+v", list)
	}

	// Parse gives the document, verified, the same one each time (cached).
	got, err := r.Get(ctx, "core/weather", "Weather", "^1")
	must(t, err)
	d1, err := r.Parse(got)
	must(t, err)
	d2, err := r.Parse(got)
	must(t, err)
	if d1 != d2 || d1.ID.Value != "Weather" || d1.Version.Value != "1.4.2" {
		t.Fatalf("parsed: %p %p %s@%s", d1, d2, d1.ID.Value, d1.Version.Value)
	}
	e, d, err := r.Resolve(ctx, "core/weather", "Weather", "~1.0")
	must(t, err)
	if e.Version != "1.0.0" || d.Version.Value != "1.0.0" {
		t.Fatalf("resolve: %s %s", e.Version, d.Version.Value)
	}
}

// A prerelease is the latest only while there is no release.
func TestLatestPrerelease(t *testing.T) {
	r := newRegistry(t, capreg.Options{})
	publish(t, r, "lab", doc(t, "Next", "0.2.0-alpha.1"))
	publish(t, r, "lab", doc(t, "Next", "0.2.0-alpha.2"))
	e, err := r.Get(ctx, "lab", "Next", "")
	must(t, err)
	if e.Version != "0.2.0-alpha.2" {
		t.Fatalf("latest of prereleases: %s", e.Version)
	}
	_, err = r.Get(ctx, "lab", "Next", "*")
	wantKind(t, err, fault.NotFound, "* never picks a prerelease (npm)")
	publish(t, r, "lab", doc(t, "Next", "0.1.0"))
	if e, _ := r.Get(ctx, "lab", "Next", ""); e.Version != "0.1.0" {
		t.Fatalf("latest with one release: %s", e.Version)
	}
}

func TestPublishIdempotentAndImmutable(t *testing.T) {
	r := newRegistry(t, capreg.Options{})
	data := doc(t, "Weather", "1.0.0")
	first := publish(t, r, "core", data)
	again := publish(t, r, "core", data)
	if !again.PublishedAt.Equal(first.PublishedAt) || again.Checksum != first.Checksum {
		t.Fatalf("republished: %+v vs %+v", again, first)
	}
	// The JSON form of the same document has the same checksum: the stored
	// YAML stays.
	tree, err := a2s.ParseTree(data, a2s.Options{})
	must(t, err)
	asJSON, err := a2s.Canonical(tree)
	must(t, err)
	e, _, err := r.Publish(ctx, asJSON, "cap.json", "core", "bob")
	must(t, err)
	if e.Format != "yaml" || e.PublishedBy != "alice" || !bytes.Equal(e.Document, data) {
		t.Fatalf("the JSON form replaced the stored version: %+v", e.WithoutDocument())
	}
	// The same version changed: Conflict.
	changed := sealed(t, unsealed("Weather", "1.0.0", "Echoes, but differently"))
	_, _, err = r.Publish(ctx, changed, "cap.yaml", "core", "alice")
	fe := wantKind(t, err, fault.Conflict, "a published version changed")
	if !strings.Contains(fe.Message, "immutable") || !strings.Contains(fe.Message, "publish a new version") {
		t.Errorf("conflict message: %s", fe.Message)
	}
	// Another namespace is another capability.
	publish(t, r, "other", changed)
	// JSON documents are stored as JSON.
	j, _, err := r.Publish(ctx, asJSON, "", "json", "")
	must(t, err)
	if j.Format != "json" || j.PublishedBy != "" {
		t.Fatalf("a JSON document: %+v", j.WithoutDocument())
	}
	if _, err := r.Parse(j); err != nil {
		t.Fatalf("parse the JSON entry: %v", err)
	}
}

func TestPublishRefusals(t *testing.T) {
	r := newRegistry(t, capreg.Options{MaxDocumentBytes: 4096})
	good := unsealed("Weather", "1.0.0", "Echoes")
	wrongSum := good + "checksum: \"sha256:" + strings.Repeat("0", 64) + "\"\n"
	notLinted := sealed(t, strings.Replace(good, "type: atomic", "type: atomik", 1))
	for _, tc := range []struct {
		name, ns string
		data     []byte
		kind     fault.Kind
		says     string
		diag     string // a rule the diagnostics must hold
	}{
		{"lint error", "core", notLinted, fault.Invalid, "does not lint clean", a2s.RuleEnum},
		{"not YAML", "core", []byte("a2s: [1.0.0\n"), fault.Invalid, "does not lint clean", a2s.RuleSyntax},
		{"no checksum", "core", []byte(good), fault.Invalid, "carries no checksum", ""},
		{"wrong checksum", "core", []byte(wrongSum), fault.Invalid, "checksum", a2s.RuleChecksumMismatch},
		{"build metadata", "core", sealed(t, unsealed("Weather", "1.0.0+build.1", "x")), fault.Invalid, "build metadata", ""},
		{"no version", "core", sealed(t, strings.Replace(good, "version: 1.0.0\ntype", "type", 1)), fault.Invalid, "lint", a2s.RuleRequired},
		{"bad namespace", "Core/Weather", doc(t, "Weather", "1.0.0"), fault.Invalid, "namespace", ""},
		{"too large", "core", append(doc(t, "Weather", "1.0.0"), bytes.Repeat([]byte("#"), 4096)...), fault.TooLarge, "limit of 4096", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, err := r.Publish(ctx, tc.data, "cap.yaml", tc.ns, "alice")
			fe := wantKind(t, err, tc.kind, tc.name)
			if !strings.Contains(fe.Message, tc.says) {
				t.Errorf("message %q does not say %q", fe.Message, tc.says)
			}
			if tc.diag != "" {
				found := false
				for _, d := range diags {
					found = found || d.Rule == tc.diag
				}
				if !found {
					t.Errorf("diagnostics %v lack %s", diags, tc.diag)
				}
				if fe.Message == "" || fe.Line == 0 {
					t.Errorf("the refusal does not point at the problem: %+v", fe)
				}
			}
		})
	}
	_, _, err := r.Publish(ctx, []byte(good), "cap.yaml", "core", "alice")
	fe := fault.From(err)
	if len(fe.Suggestions) == 0 || !strings.Contains(fe.Suggestions[0], checksumOf(t, []byte(good))) {
		t.Errorf("a missing checksum does not suggest it: %v", fe.Suggestions)
	}
	_, diags, err := r.Publish(ctx, notLinted, "cap.yaml", "core", "alice")
	fe = fault.From(err)
	if got, ok := fe.Details["diagnostics"].([]a2s.Diagnostic); !ok || len(got) != len(diags) || fe.Details["errors"] != 1 {
		t.Errorf("the refusal does not carry the diagnostics: %+v", fe.Details)
	}
	if list, _, _ := r.List(ctx, "", store.Page{}); len(list) != 0 {
		t.Fatalf("a refused document was stored: %+v", list)
	}
	// Warnings do not stop a publish and are returned.
	warned := sealed(t, strings.Replace(good, "  message: {type: string}", "  message: {type: string}\n  api_token: {type: string}", 1))
	_, diags, err = r.Publish(ctx, warned, "cap.yaml", "core", "alice")
	must(t, err)
	if len(diags) == 0 || a2s.HasErrors(diags) {
		t.Fatalf("warnings of a published document: %v", diags)
	}
}

// A long description is cut for lists; the document keeps it whole.
func TestLongDescription(t *testing.T) {
	r := newRegistry(t, capreg.Options{})
	long := strings.Repeat("é", store.MaxCapabilityDescriptionBytes)
	e := publish(t, r, "core", sealed(t, unsealed("Weather", "1.0.0", long)))
	if len(e.Description) > store.MaxCapabilityDescriptionBytes || !strings.HasSuffix(e.Description, "…") ||
		!strings.HasPrefix(e.Description, "éé") {
		t.Fatalf("description of %d bytes: %.20q…", len(e.Description), e.Description)
	}
	d, err := r.Parse(e)
	must(t, err)
	if d.Description.Value != long {
		t.Fatal("the document lost its description")
	}
}

// A stored document that no longer matches its checksum is never handed out.
func TestParseRefusesTamperedEntries(t *testing.T) {
	r := newRegistry(t, capreg.Options{})
	e := publish(t, newRegistry(t, capreg.Options{}), "core", doc(t, "Weather", "1.0.0")) // not in r's cache
	bad := e
	bad.Document = bytes.Replace(e.Document, []byte("Echoes Weather"), []byte("Exfiltrates Weather"), 1)
	_, err := r.Parse(bad)
	fe := wantKind(t, err, fault.Internal, "a changed document")
	if !strings.Contains(fe.Message, "checksum") {
		t.Errorf("message: %s", fe.Message)
	}
	other := e
	other.Checksum = checksumOf(t, doc(t, "Weather", "1.0.1"))
	_, err = r.Parse(other)
	wantKind(t, err, fault.Internal, "an entry whose checksum is another document's")
	renamed := e
	renamed.Version = "1.0.1"
	_, err = r.Parse(renamed)
	wantKind(t, err, fault.Internal, "an entry that is not the document's version")
}

func TestSplitPath(t *testing.T) {
	for _, tc := range []struct{ path, ns, id string }{
		{"core/weather/WeatherCapability", "core/weather", "WeatherCapability"},
		{"/core/Weather/", "core", "Weather"},
		{"Hello", "default", "Hello"},
	} {
		ns, id, err := capreg.SplitPath(tc.path)
		if err != nil || ns != tc.ns || id != tc.id {
			t.Errorf("SplitPath(%q) = %q %q %v", tc.path, ns, id, err)
		}
	}
	for _, bad := range []string{"", "core//Weather", "Core/Weather", "core/We ather", "core/.hidden", "a/b/c/d/e/f/g/h/i/X"} {
		_, _, err := capreg.SplitPath(bad)
		wantKind(t, err, fault.Invalid, "SplitPath "+bad)
	}
}

// The JSON of an Entry is the registry's HTTP answer; the golden pins it.
func TestEntryJSON(t *testing.T) {
	e := capreg.Entry{Namespace: "core/weather", ID: "WeatherCapability", Version: "1.4.2",
		Checksum: "sha256:" + strings.Repeat("ab", 32), Type: "atomic", Level: "basic", AuditStatus: "audited",
		Description: "Gets the weather", PublishedAt: time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC), PublishedBy: "acct_1",
		Document: []byte("a2s: 1.0.0\nid: WeatherCapability\ndescription: <b>&</b> é\n"), Format: "yaml", Versions: 3}
	got, err := json.MarshalIndent(e, "", "  ")
	must(t, err)
	golden := filepath.Join("testdata", "entry.golden.json")
	if *update {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(golden, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(golden)
	must(t, err)
	if string(want) != string(got)+"\n" {
		t.Fatalf("Entry JSON changed (-update rewrites):\n%s\nwant\n%s", got, want)
	}
	var back capreg.Entry
	must(t, json.Unmarshal(got, &back))
	if !bytes.Equal(back.Document, e.Document) || !back.PublishedAt.Equal(e.PublishedAt) || back.Versions != 3 || back.Checksum != e.Checksum {
		t.Fatalf("round trip: %+v", back)
	}
	// Without a document, the field is left out.
	bare, err := json.Marshal(e.WithoutDocument())
	must(t, err)
	if bytes.Contains(bare, []byte(`"document"`)) {
		t.Fatalf("an entry without document: %s", bare)
	}
}
