package validate_test

import (
	"testing"

	"github.com/sluicehq/sluice/internal/validate"
)

// twentyOps is a valid workflow of 20 operations using every operation type,
// nesting and templates: the default maxOperations.
func twentyOps() string {
	return doc(
		upd("fetch-users", fetchUsers),
		upd("fetch-teams", `{"ApiCall":{"method":"GET","url":"https://api.example.com/teams","headers":{"Authorization":{"credentialRef":{"id":"api-key-123"}}},"outputPath":"/workflow/teams"}}`),
		upd("filter-active", filterActive),
		upd("sort-active", `{"TransformData":{"inputPath":"/workflow/active","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/sorted"}}`),
		upd("select-names", `{"TransformData":{"inputPath":"/workflow/sorted","transform":"select","config":{"fields":["name"]},"outputPath":"/workflow/names"}}`),
		upd("group-team", `{"TransformData":{"inputPath":"/workflow/active","transform":"group","config":{"field":"team"},"outputPath":"/workflow/by-team"}}`),
		upd("stats", `{"TransformData":{"inputPath":"/workflow/active","transform":"aggregate","config":{"groupBy":"team","operations":[{"op":"count","as":"n"}]},"outputPath":"/workflow/stats"}}`),
		upd("merge", `{"MergeData":{"sources":["/workflow/active","/workflow/teams"],"strategy":"concat","outputPath":"/workflow/all"}}`),
		upd("load-cfg", `{"LoadData":{"storage":"localStorage","key":"cfg","outputPath":"/workflow/cfg"}}`),
		upd("merge-deep", `{"MergeData":{"sources":["/workflow/by-team","/workflow/cfg"],"strategy":"deepMerge","outputPath":"/workflow/merged"}}`),
		upd("check", `{"Conditional":{"condition":{"path":"/workflow/stats[0].n","operator":">","value":0},"ifTrue":["store-stats"],"ifFalse":["wait-a"],"outputPath":"/workflow/branch"}}`),
		upd("store-stats", `{"StoreData":{"inputPath":"/workflow/stats","storage":"localStorage","key":"stats"}}`),
		upd("wait-a", `{"Wait":{"duration":10}}`),
		upd("each", `{"Loop":{"inputPath":"/workflow/sorted","operations":["post-user","store-user"],"outputPath":"/workflow/posted"}}`),
		upd("post-user", `{"ApiCall":{"method":"POST","url":"https://api.example.com/users/{/workflow/item.id}","body":{"name":"{/workflow/item.name}","token":{"credentialRef":{"id":"api-key-123"}}},"outputPath":"/workflow/post"}}`),
		upd("store-user", `{"StoreData":{"inputPath":"/workflow/item","storage":"sessionStorage","key":"user-{/workflow/index}"}}`),
		upd("map-posted", `{"TransformData":{"inputPath":"/workflow/posted","transform":"map","config":{"expression":"item.id"},"outputPath":"/workflow/mapped"}}`),
		upd("filter-mapped", `{"FilterData":{"inputPath":"/workflow/names","conditions":[{"field":"name","operator":"startsWith","value":"a"},{"field":"team","operator":"in","value":["x","y"]},{"field":"points","operator":">","value":3}],"outputPath":"/workflow/a-names"}}`),
		upd("store-all", `{"StoreData":{"inputPath":"/workflow/all","storage":"file","key":"all.json"}}`),
		upd("done", `{"Wait":{"duration":0}}`),
		begin("fetch-users", "fetch-teams", "filter-active", "sort-active", "select-names", "group-team", "stats", "merge",
			"load-cfg", "merge-deep", "check", "each", "map-posted", "filter-mapped", "store-all", "done"),
	)
}

func TestTwentyOps(t *testing.T) {
	for _, o := range []validate.Options{opts(), {Permissions: grants()}} {
		r := validate.Document([]byte(twentyOps()), o)
		checkProblems(t, "errors", r.Errors, nil)
		checkProblems(t, "warnings", r.Warnings, nil)
		if !r.Valid || len(r.Workflow.Operations) != 20 {
			t.Errorf("valid %v, %d operations", r.Valid, len(r.Workflow.Operations))
		}
	}
}

func BenchmarkSpecComplete(b *testing.B) {
	o := validate.Options{Env: stubEnv(), Permissions: exampleGrants()}
	d := []byte(specComplete)
	b.ReportAllocs()
	for b.Loop() {
		if r := validate.Document(d, o); !r.Valid {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkTwentyOps(b *testing.B) {
	o := opts()
	d := []byte(twentyOps())
	b.ReportAllocs()
	for b.Loop() {
		if r := validate.Document(d, o); !r.Valid {
			b.Fatal("invalid")
		}
	}
}

// The same, without decoding: validation alone.
func BenchmarkTwentyOpsWorkflow(b *testing.B) {
	o := opts()
	wf := parseDoc(b, twentyOps())
	b.ReportAllocs()
	for b.Loop() {
		if r := validate.Workflow(wf, o); !r.Valid {
			b.Fatal("invalid")
		}
	}
}

// With the real operations' factories.
func BenchmarkTwentyOpsRealCatalog(b *testing.B) {
	o := validate.Options{Env: realEnv(), Permissions: grants()}
	d := []byte(twentyOps())
	b.ReportAllocs()
	for b.Loop() {
		if r := validate.Document(d, o); !r.Valid {
			b.Fatal("invalid")
		}
	}
}
