package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store"
)

// mkCapability is a version of NS/ID whose document is body; the checksum is
// the SHA-256 of body (the store checks only its shape).
func mkCapability(ns, id, version, body string) store.CapabilityVersion {
	sum := sha256.Sum256([]byte(body))
	return store.CapabilityVersion{Namespace: ns, ID: id, Version: version, Checksum: "sha256:" + hex.EncodeToString(sum[:]),
		Type: "atomic", Level: "basic", AuditStatus: "audited", Description: "Gets the weather\nfor a city",
		Document: []byte(body), Format: store.CapabilityYAML, PublishedBy: "alice"}
}

func testCapabilities(t *testing.T, s store.Store) {
	v1 := mkCapability("core/weather", "Weather", "1.0.0", "id: Weather\nversion: 1.0.0\n")
	got, created, err := s.PublishCapability(ctx, v1)
	must(t, err)
	if !created || got.PublishedAt.IsZero() || got.Checksum != v1.Checksum || string(got.Document) != string(v1.Document) {
		t.Fatalf("published: created %v %+v", created, got)
	}
	// The same version with the same checksum: the stored one, not created;
	// even with other bytes (the YAML and JSON forms of one document share
	// their checksum), the first bytes stay.
	again := v1
	again.Document, again.Format, again.PublishedBy = []byte(`{"id":"Weather","version":"1.0.0"}`), store.CapabilityJSON, "bob"
	stored, created, err := s.PublishCapability(ctx, again)
	must(t, err)
	if created || !stored.PublishedAt.Equal(got.PublishedAt) || string(stored.Document) != string(v1.Document) ||
		stored.Format != store.CapabilityYAML || stored.PublishedBy != "alice" {
		t.Fatalf("republished: created %v %+v", created, stored)
	}
	// The same version with another checksum: Conflict, and nothing changes.
	changed := mkCapability("core/weather", "Weather", "1.0.0", "id: Weather\nversion: 1.0.0\ndescription: changed\n")
	_, _, err = s.PublishCapability(ctx, changed)
	wantKind(t, err, fault.Conflict, "a published version with another checksum")
	if !strings.Contains(err.Error(), "immutable") {
		t.Errorf("the conflict does not say versions are immutable: %v", err)
	}
	read, err := s.GetCapabilityVersion(ctx, "core/weather", "Weather", "1.0.0")
	must(t, err)
	if read.Checksum != v1.Checksum || string(read.Document) != string(v1.Document) || read.Description != v1.Description ||
		read.Type != "atomic" || read.Level != "basic" || read.AuditStatus != "audited" || read.Format != "yaml" ||
		read.PublishedBy != "alice" || !read.PublishedAt.Equal(got.PublishedAt) {
		t.Fatalf("read back: %+v", read)
	}

	// Every version is kept, listed in publish order without documents; the
	// latest is the highest release, a prerelease only while there is none.
	for _, ver := range []string{"2.0.0-beta.1", "1.10.0", "1.2.0"} {
		_, _, err := s.PublishCapability(ctx, mkCapability("core/weather", "Weather", ver, "version: "+ver))
		must(t, err)
	}
	list, err := s.ListCapabilityVersions(ctx, "core/weather", "Weather")
	must(t, err)
	var versions []string
	for _, v := range list {
		if len(v.Document) != 0 || v.Checksum == "" || v.PublishedAt.IsZero() {
			t.Fatalf("listed version: %+v", v)
		}
		versions = append(versions, v.Version)
	}
	if strings.Join(versions, " ") != "1.0.0 2.0.0-beta.1 1.10.0 1.2.0" {
		t.Fatalf("versions in publish order: %v", versions)
	}
	latest := func(ns, id string) store.CapabilitySummary {
		t.Helper()
		caps, _, err := s.ListCapabilities(ctx, ns, store.Page{})
		must(t, err)
		for _, c := range caps {
			if c.Namespace == ns && c.ID == id {
				return c
			}
		}
		t.Fatalf("%s/%s is not listed: %+v", ns, id, caps)
		return store.CapabilitySummary{}
	}
	if c := latest("core/weather", "Weather"); c.Versions != 4 || c.Latest.Version != "1.10.0" || len(c.Latest.Document) != 0 ||
		c.Latest.Namespace != "core/weather" || c.Latest.Checksum == "" {
		t.Fatalf("summary: %+v", c)
	}
	_, _, err = s.PublishCapability(ctx, mkCapability("core/weather", "Weather", "2.0.0", "version: 2"))
	must(t, err)
	if c := latest("core/weather", "Weather"); c.Versions != 5 || c.Latest.Version != "2.0.0" {
		t.Fatalf("summary after 2.0.0: %+v", c)
	}
	_, _, err = s.PublishCapability(ctx, mkCapability("lab", "Next", "0.1.0-alpha.1", "a1"))
	must(t, err)
	_, _, err = s.PublishCapability(ctx, mkCapability("lab", "Next", "0.1.0-alpha.2", "a2"))
	must(t, err)
	if c := latest("lab", "Next"); c.Versions != 2 || c.Latest.Version != "0.1.0-alpha.2" {
		t.Fatalf("prerelease-only summary: %+v", c)
	}

	_, err = s.GetCapabilityVersion(ctx, "core/weather", "Weather", "3.0.0")
	wantKind(t, err, fault.NotFound, "a version never published")
	_, err = s.GetCapabilityVersion(ctx, "core/weather", "Other", "1.0.0")
	wantKind(t, err, fault.NotFound, "a capability never published")
	empty, err := s.ListCapabilityVersions(ctx, "core/weather", "Other")
	must(t, err)
	if empty == nil || len(empty) != 0 {
		t.Fatalf("versions of a capability never published: %#v", empty)
	}
}

func testCapabilityScoping(t *testing.T, s store.Store) {
	for _, c := range []struct{ ns, id string }{
		{"core", "Weather"}, {"core/weather", "Weather"}, {"core/weather", "Alerts"}, {"corex", "Weather"},
		{"core-x", "Weather"}, {"core/weather/deep", "Radar"}, {"default", "Hello"},
	} {
		_, _, err := s.PublishCapability(ctx, mkCapability(c.ns, c.id, "1.0.0", c.ns+"/"+c.id))
		must(t, err)
	}
	// One id in two namespaces is two capabilities.
	a, err := s.GetCapabilityVersion(ctx, "core", "Weather", "1.0.0")
	must(t, err)
	b, err := s.GetCapabilityVersion(ctx, "core/weather", "Weather", "1.0.0")
	must(t, err)
	if string(a.Document) != "core/Weather" || string(b.Document) != "core/weather/Weather" {
		t.Fatalf("namespaces mixed: %q %q", a.Document, b.Document)
	}
	_, err = s.GetCapabilityVersion(ctx, "cor", "Weather", "1.0.0")
	wantKind(t, err, fault.NotFound, "a namespace that is only a prefix")

	names := func(prefix string, limit int) []string {
		t.Helper()
		var out []string
		cursor := ""
		for pages := 0; ; pages++ {
			caps, next, err := s.ListCapabilities(ctx, prefix, store.Page{Cursor: cursor, Limit: limit})
			must(t, err)
			if limit > 0 && len(caps) > limit {
				t.Fatalf("a page of %d for limit %d", len(caps), limit)
			}
			for _, c := range caps {
				out = append(out, c.Namespace+"/"+c.ID)
			}
			if next == "" {
				return out
			}
			if pages > 20 {
				t.Fatal("paging does not end")
			}
			cursor = next
		}
	}
	want := map[string]string{
		"":                  "core/Weather core-x/Weather core/weather/Alerts core/weather/Weather core/weather/deep/Radar corex/Weather default/Hello",
		"core":              "core/Weather core/weather/Alerts core/weather/Weather core/weather/deep/Radar",
		"core/":             "core/Weather core/weather/Alerts core/weather/Weather core/weather/deep/Radar",
		"core/weather":      "core/weather/Alerts core/weather/Weather core/weather/deep/Radar",
		"core/weather/deep": "core/weather/deep/Radar",
		"cor":               "",
		"nothing":           "",
	}
	for prefix, w := range want {
		for _, limit := range []int{0, 1, 2} {
			if got := strings.Join(names(prefix, limit), " "); got != w {
				t.Errorf("prefix %q, limit %d:\n got %s\nwant %s", prefix, limit, got, w)
			}
		}
	}
	for _, bad := range []string{"Core", "core//x", "/core", "a b"} {
		_, _, err := s.ListCapabilities(ctx, bad, store.Page{})
		wantKind(t, err, fault.Invalid, fmt.Sprintf("prefix %q", bad))
	}
	for _, bad := range []string{"nonsense", "a/", "/x", "Core/x", "a/b c"} {
		_, _, err := s.ListCapabilities(ctx, "", store.Page{Cursor: bad})
		wantKind(t, err, fault.Invalid, fmt.Sprintf("cursor %q", bad))
	}
	_, _, err = s.ListCapabilities(ctx, "", store.Page{Limit: store.MaxPageSize + 1})
	wantKind(t, err, fault.Invalid, "a page over the bound")
}

func testCapabilityBounds(t *testing.T, s store.Store) {
	good := mkCapability("core", "Weather", "1.0.0", "body")
	with := func(f func(*store.CapabilityVersion)) store.CapabilityVersion {
		v := good
		f(&v)
		return v
	}
	bad := []struct {
		field string
		v     store.CapabilityVersion
	}{
		{"namespace", with(func(v *store.CapabilityVersion) { v.Namespace = "" })},
		{"namespace", with(func(v *store.CapabilityVersion) { v.Namespace = "Core" })},
		{"namespace", with(func(v *store.CapabilityVersion) { v.Namespace = "core//weather" })},
		{"namespace", with(func(v *store.CapabilityVersion) { v.Namespace = "core/" })},
		{"namespace", with(func(v *store.CapabilityVersion) { v.Namespace = "/core" })},
		{"namespace", with(func(v *store.CapabilityVersion) { v.Namespace = "core.weather" })},
		{"namespace", with(func(v *store.CapabilityVersion) {
			v.Namespace = strings.Repeat("n", store.MaxCapabilityNamespaceBytes+1)
		})},
		{"namespace", with(func(v *store.CapabilityVersion) {
			v.Namespace = strings.TrimSuffix(strings.Repeat("a/", store.MaxCapabilityNamespaceSegments+1), "/")
		})},
		{"id", with(func(v *store.CapabilityVersion) { v.ID = "" })},
		{"id", with(func(v *store.CapabilityVersion) { v.ID = "core/Weather" })},
		{"id", with(func(v *store.CapabilityVersion) { v.ID = ".hidden" })},
		{"id", with(func(v *store.CapabilityVersion) { v.ID = "We ather" })},
		{"id", with(func(v *store.CapabilityVersion) { v.ID = strings.Repeat("i", store.MaxCapabilityIDBytes+1) })},
		{"version", with(func(v *store.CapabilityVersion) { v.Version = "" })},
		{"version", with(func(v *store.CapabilityVersion) { v.Version = "1.0" })},
		{"version", with(func(v *store.CapabilityVersion) { v.Version = "v1.0.0" })},
		{"version", with(func(v *store.CapabilityVersion) { v.Version = "1.0.0+build.7" })},
		{"version", with(func(v *store.CapabilityVersion) {
			v.Version = "1.0.0-" + strings.Repeat("p", store.MaxCapabilityVersionBytes)
		})},
		{"checksum", with(func(v *store.CapabilityVersion) { v.Checksum = "" })},
		{"checksum", with(func(v *store.CapabilityVersion) { v.Checksum = strings.TrimPrefix(good.Checksum, "sha256:") })},
		{"checksum", with(func(v *store.CapabilityVersion) { v.Checksum = strings.ToUpper(good.Checksum) })},
		{"checksum", with(func(v *store.CapabilityVersion) { v.Checksum = "md5:" + strings.Repeat("0", 32) })},
		{"type", with(func(v *store.CapabilityVersion) { v.Type = strings.Repeat("t", store.MaxNameBytes+1) })},
		{"level", with(func(v *store.CapabilityVersion) { v.Level = "basic\x00" })},
		{"audit status", with(func(v *store.CapabilityVersion) { v.AuditStatus = "\xff" })},
		{"description", with(func(v *store.CapabilityVersion) { v.Description = "a\x07b" })},
		{"description", with(func(v *store.CapabilityVersion) {
			v.Description = strings.Repeat("d", store.MaxCapabilityDescriptionBytes+1)
		})},
		{"document", with(func(v *store.CapabilityVersion) { v.Document = nil })},
		{"document", with(func(v *store.CapabilityVersion) { v.Document = make([]byte, store.MaxCapabilityDocumentBytes+1) })},
		{"format", with(func(v *store.CapabilityVersion) { v.Format = "xml" })},
		{"format", with(func(v *store.CapabilityVersion) { v.Format = "" })},
		{"published by", with(func(v *store.CapabilityVersion) { v.PublishedBy = "a b" })},
	}
	for _, b := range bad {
		_, _, err := s.PublishCapability(ctx, b.v)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("bad %s %.40q/%.40q@%.40q", b.field, b.v.Namespace, b.v.ID, b.v.Version))
		if fe := fault.From(err); fe.Details["field"] != b.field {
			t.Errorf("bad %s: the error names %v (%v)", b.field, fe.Details["field"], err)
		}
	}
	if caps, _, err := s.ListCapabilities(ctx, "", store.Page{}); err != nil || len(caps) != 0 {
		t.Fatalf("refused versions were stored: %+v %v", caps, err)
	}
	// A document of exactly the bound is accepted; anonymous publishing too.
	big := with(func(v *store.CapabilityVersion) {
		v.Document, v.PublishedBy, v.Description = make([]byte, store.MaxCapabilityDocumentBytes), "", ""
	})
	_, _, err := s.PublishCapability(ctx, big)
	must(t, err)
	for _, q := range []struct{ ns, id, version string }{
		{"", "Weather", "1.0.0"}, {"core", "", "1.0.0"}, {"core", "Weather", ""}, {"core", "Weather", "latest"}, {"Core", "Weather", "1.0.0"},
	} {
		_, err := s.GetCapabilityVersion(ctx, q.ns, q.id, q.version)
		wantKind(t, err, fault.Invalid, fmt.Sprintf("get %q/%q@%q", q.ns, q.id, q.version))
	}
	_, err = s.ListCapabilityVersions(ctx, "core", "a/b")
	wantKind(t, err, fault.Invalid, "versions of a bad id")

	// The bound of versions per capability, reached in parallel so group
	// commit can batch.
	n := store.MaxCapabilityVersions - 1 // 1.0.0 is there
	parallel(t, n, func(i int) error {
		_, _, err := s.PublishCapability(ctx, mkCapability("core", "Weather", fmt.Sprintf("2.%d.%d", i/100, i%100), "v"))
		return err
	})
	_, _, err = s.PublishCapability(ctx, mkCapability("core", "Weather", "9.0.0", "v"))
	wantKind(t, err, fault.Invalid, "one version too many")
	list, err := s.ListCapabilityVersions(ctx, "core", "Weather")
	must(t, err)
	if len(list) != store.MaxCapabilityVersions {
		t.Fatalf("%d versions kept, want the bound %d", len(list), store.MaxCapabilityVersions)
	}
	// Republishing a kept version is still idempotent at the bound.
	_, created, err := s.PublishCapability(ctx, mkCapability("core", "Weather", "2.0.5", "v"))
	if err != nil || created {
		t.Fatalf("republishing at the bound: created %v, %v", created, err)
	}
}
