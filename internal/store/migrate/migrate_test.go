package migrate_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/store/migrate"
)

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_more.sql":  {Data: []byte("CREATE TABLE b (x);")},
		"m/0001_init.sql":  {Data: []byte("CREATE TABLE a (x);")},
		"m/README.md":      {Data: []byte("not a migration")},
		"m/sub/0003_x.sql": {Data: []byte("ignored: in a folder")},
	}
	ms, err := migrate.Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[1].Version != 2 || ms[1].SQL != "CREATE TABLE b (x);" {
		t.Fatalf("got %+v", ms)
	}
	pending, err := migrate.Pending(ms, 1)
	if err != nil || len(pending) != 1 || pending[0].Name != "0002_more.sql" {
		t.Fatalf("pending after 1: %+v, %v", pending, err)
	}
	if pending, _ := migrate.Pending(ms, 0); len(pending) != 2 {
		t.Fatalf("pending after 0: %+v", pending)
	}
	if pending, _ := migrate.Pending(ms, 2); len(pending) != 0 {
		t.Fatalf("pending after 2: %+v", pending)
	}
}

func TestNewerDatabaseIsRefused(t *testing.T) {
	ms := []migrate.Migration{{Version: 1, Name: "0001_init.sql"}}
	_, err := migrate.Pending(ms, 7)
	if fault.KindOf(err) != fault.Unavailable {
		t.Fatalf("kind %v, want unavailable: %v", fault.KindOf(err), err)
	}
	if !strings.Contains(err.Error(), "version 7") || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("message should name both versions: %q", err)
	}
}

func TestBadSets(t *testing.T) {
	cases := map[string]fstest.MapFS{
		"gap":       {"m/0001_a.sql": {}, "m/0003_c.sql": {}},
		"repeat":    {"m/0001_a.sql": {}, "m/0001_b.sql": {}},
		"misnamed":  {"m/0001_a.sql": {}, "m/2_b.sql": {}},
		"uppercase": {"m/0001_A.sql": {}},
		"no start":  {"m/0002_a.sql": {}},
	}
	for name, fsys := range cases {
		if _, err := migrate.Load(fsys, "m"); err == nil {
			t.Errorf("%s: expected an error", name)
		}
	}
	if _, err := migrate.Load(fstest.MapFS{}, "missing"); err == nil {
		t.Error("missing folder: expected an error")
	}
}
