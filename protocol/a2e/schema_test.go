package a2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/protocol/a2e"
)

// compileSchemas compiles every embedded schema; operationUpdate refers to the
// operation schemas, so all are added first.
func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, name := range a2e.SchemaNames() {
		b, ok := a2e.Schema(name)
		if !ok {
			t.Fatalf("schema %s missing", name)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.AddResource(a2e.SchemaBaseURI+name+".json", doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range a2e.SchemaNames() {
		s, err := c.Compile(a2e.SchemaBaseURI + name + ".json")
		if err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

func instance(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestSchemaNames(t *testing.T) {
	names := a2e.SchemaNames()
	want := append([]string{"operationUpdate", "beginExecution"}, a2e.OperationNames...)
	if !slices.Equal(names, want) {
		t.Errorf("SchemaNames = %v", names)
	}
	files, _ := filepath.Glob(filepath.Join("schemas", "*.json"))
	if len(files) != len(names) {
		t.Errorf("%d schema files for %d names", len(files), len(names))
	}
	for _, f := range files {
		if !slices.Contains(names, strings.TrimSuffix(filepath.Base(f), ".json")) {
			t.Errorf("schema file %s has no name", f)
		}
	}
	if _, ok := a2e.Schema("Nope"); ok {
		t.Error("unknown schema found")
	}
	if _, ok := a2e.Schema("../schema"); ok {
		t.Error("path outside the schema folder found")
	}
	a, _ := a2e.Schema("Wait")
	a[0] = 'X'
	if b, _ := a2e.Schema("Wait"); b[0] == 'X' {
		t.Error("Schema returns shared bytes")
	}
}

// Spec examples and more valid configs: each must pass its schema and DecodeConfig.
var validConfigs = map[string][]string{
	"ApiCall": {
		`{"method":"GET","url":"https://api.example.com/users","headers":{"Authorization":{"credentialRef":{"id":"api-key-123"}}},"outputPath":"/workflow/users"}`,
		`{"method":"GET","url":"https://api.example.com/users","headers":{},"outputPath":"/workflow/users"}`,
		`{"method":"POST","url":"https://x.test/{/workflow/id}","body":{"a":"{/input/x}"},"idempotencyKey":"k","timeout":600000,"retry":{"maxRetries":10,"initialDelayMs":0,"maxDelayMs":60000,"unsafe":true},"cache":false,"outputPath":"/workflow/r[0].x/y"}`,
		`{"method":"DELETE","url":"https://x.test/","body":"text","outputPath":"/workflow/d"}`,
	},
	"FilterData": {
		`{"inputPath":"/workflow/users","conditions":[{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/active-users"}`,
		`{"inputPath":"/workflow/users","conditions":[{"field":"points","operator":">","value":100},{"field":"status","operator":"==","value":"active"}],"outputPath":"/workflow/filtered-users"}`,
		`{"inputPath":"/input/list","conditions":[{"field":"a.b[2]","operator":"in","value":[1,2]},{"field":"","operator":"startsWith","value":"x"},{"field":"n","operator":"<=","value":{"path":"/workflow/max"}}],"outputPath":"/workflow/o","cache":true}`,
	},
	"TransformData": {
		`{"inputPath":"/workflow/users","transform":"sort","config":{"field":"points","order":"desc"},"outputPath":"/workflow/sorted-users"}`,
		`{"inputPath":"/workflow/u","transform":"select","config":{"fields":["name","profile.age"]},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"select","config":{"field":"profile.age"},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"group","config":{"field":"team"},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"aggregate","config":{"operations":[{"op":"count","as":"n"},{"op":"avg","field":"points"}],"groupBy":"team"},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"map","config":{"expression":"item.points * 2"},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"map","config":{"fields":{"who":"name","age":"profile.age"}},"outputPath":"/workflow/o"}`,
	},
	"Conditional": {
		`{"condition":{"path":"/workflow/count","operator":">","value":0},"ifTrue":["op-process"],"ifFalse":["op-skip"]}`,
		`{"condition":{"path":"/workflow/count","operator":"exists"},"ifTrue":["a"],"outputPath":"/workflow/branch"}`,
	},
	"Loop": {
		`{"inputPath":"/workflow/users","operations":["op-process-user"],"outputPath":"/workflow/processed-users"}`,
		`{"inputPath":"/workflow/users","operations":["a","b"],"concurrency":64,"maxIterations":5}`,
	},
	"StoreData": {
		`{"inputPath":"/workflow/results","storage":"localStorage","key":"workflow-results"}`,
		`{"inputPath":"/workflow/results","storage":"file","key":"reports/today.json","timeout":10}`,
	},
	"LoadData": {
		`{"storage":"sessionStorage","key":"k","outputPath":"/workflow/o"}`,
		`{"storage":"localStorage","key":"k","outputPath":"/workflow/o","default":{"a":[]}}`,
	},
	"Wait": {`{"duration":1000}`, `{"duration":0}`, `{"duration":600000}`},
	"InvokeAgent": {
		`{"agent":"summarizer","outputPath":"/workflow/summary"}`,
		`{"agent":"summarizer","input":{"text":"{/input/text}","n":3,"items":["{/workflow/items}"]},"taskId":"sum-{/input/id}","timeout":600000,"outputPath":"/workflow/s[0].x/y"}`,
		`{"agent":"a-1_b","input":"{/workflow/task}","outputPath":"/workflow/o"}`,
	},
	"MergeData": {
		`{"sources":["/workflow/users","/workflow/profiles"],"strategy":"deepMerge","outputPath":"/workflow/merged"}`,
		`{"sources":["/workflow/a","/input/b","/workflow/c[0]"],"strategy":"intersect","outputPath":"/workflow/m"}`,
	},
}

// Invalid configs, each with the reason it must fail its schema.
var invalidConfigs = map[string][]string{
	"ApiCall": {
		`{"url":"https://x.test","outputPath":"/workflow/o"}`,                                  // no method
		`{"method":"HEAD","url":"https://x.test","outputPath":"/workflow/o"}`,                  // HEAD not in the spec
		`{"method":"get","url":"https://x.test","outputPath":"/workflow/o"}`,                   // case
		`{"method":"GET","outputPath":"/workflow/o"}`,                                          // no url
		`{"method":"GET","url":"","outputPath":"/workflow/o"}`,                                 // empty url
		`{"method":"GET","url":"https://x.test"}`,                                              // no outputPath
		`{"method":"GET","url":"https://x.test","outputPath":"/input/x"}`,                      // input is read-only
		`{"method":"GET","url":"https://x.test","outputPath":"workflow/o"}`,                    // not a path
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","timeout":0}`,       // range
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","timeout":600001}`,  // range
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","headers":{"A":1}}`, // header type
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","headers":{"A":{"credentialRef":{}}}}`,
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","headers":{"A":{"credentialRef":{"id":"k"},"x":1}}}`,
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","retry":{"maxRetries":11}}`,
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","retry":{"maxRetries":-1}}`,
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","retry":{"backoff":2}}`,
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","cache":"yes"}`,
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","outputpath":"/workflow/p"}`, // unknown field
		`{"method":"GET","url":"https://x.test","outputPath":"/workflow/o","idempotencyKey":""}`,
	},
	"FilterData": {
		`{"inputPath":"/workflow/u","outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","conditions":[],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","conditions":[{"field":"a","operator":"=","value":1}],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","conditions":[{"field":"a","operator":"exists"}],"outputPath":"/workflow/o"}`, // Conditional only
		`{"inputPath":"/workflow/u","conditions":[{"operator":"==","value":1}],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","conditions":[{"field":"a b","operator":"==","value":1}],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","conditions":[{"field":"a","operator":"==","value":1,"not":true}],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u[01]","conditions":[{"field":"a","operator":"==","value":1}],"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","conditions":{"field":"a","operator":"==","value":1},"outputPath":"/workflow/o"}`,
	},
	"TransformData": {
		`{"inputPath":"/workflow/u","transform":"reverse","config":{},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"sort","outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"sort","config":{},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"sort","config":{"field":"p","order":"up"},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"sort","config":{"field":"p","extra":1},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"select","config":{},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"select","config":{"fields":["a"],"field":"b"},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"aggregate","config":{"operations":[{"op":"median","field":"p"}]},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"aggregate","config":{"operations":[{"op":"sum"}]},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"aggregate","config":{"operations":[]},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"map","config":{},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"map","config":{"expression":""},"outputPath":"/workflow/o"}`,
		`{"inputPath":"/workflow/u","transform":"group","config":{"by":"team"},"outputPath":"/workflow/o"}`,
		`{"transform":"sort","config":{"field":"p"},"outputPath":"/workflow/o"}`,
	},
	"Conditional": {
		`{"ifTrue":["a"]}`,
		`{"condition":{"path":"/workflow/c","operator":">","value":0}}`,
		`{"condition":{"path":"/workflow/c","operator":"matches","value":0},"ifTrue":["a"]}`,
		`{"condition":{"operator":">","value":0},"ifTrue":["a"]}`,
		`{"condition":{"path":"/workflow/c","operator":">","value":0},"ifTrue":"a"}`,
		`{"condition":{"path":"/workflow/c","operator":">","value":0},"ifTrue":["a b"]}`,
		`{"condition":{"path":"/workflow/c","operator":">","value":0,"else":1},"ifTrue":["a"]}`,
	},
	"Loop": {
		`{"operations":["a"]}`,
		`{"inputPath":"/workflow/u"}`,
		`{"inputPath":"/workflow/u","operations":[]}`,
		`{"inputPath":"/workflow/u","operations":["a"],"concurrency":0}`,
		`{"inputPath":"/workflow/u","operations":["a"],"concurrency":65}`,
		`{"inputPath":"/workflow/u","operations":["a"],"maxIterations":0}`,
		`{"inputPath":"/workflow/u","operations":["a"],"parallel":true}`,
	},
	"StoreData": {
		`{"inputPath":"/workflow/u","storage":"disk","key":"k"}`,
		`{"inputPath":"/workflow/u","storage":"file"}`,
		`{"inputPath":"/workflow/u","storage":"file","key":""}`,
		`{"storage":"file","key":"k"}`,
		`{"inputPath":"/workflow/u","storage":"file","key":"k","ttl":5}`,
	},
	"LoadData": {
		`{"storage":"file","key":"k"}`,
		`{"storage":"memory","key":"k","outputPath":"/workflow/o"}`,
		`{"key":"k","outputPath":"/workflow/o"}`,
		`{"storage":"file","key":"k","outputPath":"/workflow/o","fallback":1}`,
	},
	"InvokeAgent": {
		`{"outputPath":"/workflow/o"}`,                                      // no agent
		`{"agent":"summarizer"}`,                                            // no outputPath
		`{"agent":"","outputPath":"/workflow/o"}`,                           // empty name
		`{"agent":"agent.x","outputPath":"/workflow/o"}`,                    // '.' is not in a name
		`{"agent":"-x","outputPath":"/workflow/o"}`,                         // starts with '-'
		`{"agent":"x","input":[1],"outputPath":"/workflow/o"}`,              // input is an object
		`{"agent":"x","input":3,"outputPath":"/workflow/o"}`,                // input is an object
		`{"agent":"x","taskId":"","outputPath":"/workflow/o"}`,              // empty task id
		`{"agent":"x","outputPath":"/input/o"}`,                             // input is read-only
		`{"agent":"x","outputPath":"/workflow/o","retry":{"maxRetries":1}}`, // the invoker alone retries
		`{"agent":"x","outputPath":"/workflow/o","cache":true}`,             // not cached
		`{"agent":"x","outputPath":"/workflow/o","timeout":0}`,              // range
		`{"agent":"x","outputPath":"/workflow/o","task_id":"t"}`,            // unknown field
	},
	"Wait": {`{}`, `{"duration":-1}`, `{"duration":600001}`, `{"duration":"1000"}`, `{"duration":1.5}`, `{"duration":1,"until":"x"}`},
	"MergeData": {
		`{"sources":["/workflow/a"],"strategy":"concat","outputPath":"/workflow/o"}`,
		`{"sources":["/workflow/a","/workflow/b"],"strategy":"zip","outputPath":"/workflow/o"}`,
		`{"sources":["/workflow/a","/workflow/b"],"outputPath":"/workflow/o"}`,
		`{"sources":["/workflow/a","b"],"strategy":"concat","outputPath":"/workflow/o"}`,
		`{"sources":["/workflow/a","/workflow/b"],"strategy":"concat"}`,
	},
}

func TestSchemasAcceptValidConfigs(t *testing.T) {
	schemas := compileSchemas(t)
	for _, name := range a2e.OperationNames {
		if len(validConfigs[name]) == 0 || len(invalidConfigs[name]) == 0 {
			t.Errorf("%s: no valid or no invalid examples", name)
		}
		for _, cfg := range validConfigs[name] {
			if err := schemas[name].Validate(instance(t, cfg)); err != nil {
				t.Errorf("%s rejects %s: %v", name, cfg, err)
			}
			v, err := a2e.DecodeConfig(op(name, cfg))
			if err != nil {
				t.Errorf("DecodeConfig rejects %s %s: %v", name, cfg, err)
			}
			if td, ok := v.(*a2e.TransformData); ok {
				if _, err := a2e.DecodeTransformConfig(td); err != nil {
					t.Errorf("DecodeTransformConfig rejects %s: %v", cfg, err)
				}
			}
			// And inside a whole operationUpdate message.
			msg := `{"type":"operationUpdate","operationId":"x","operation":{"` + name + `":` + cfg + `}}`
			if err := schemas["operationUpdate"].Validate(instance(t, msg)); err != nil {
				t.Errorf("operationUpdate rejects %s: %v", msg, err)
			}
		}
	}
}

func TestSchemasRejectInvalidConfigs(t *testing.T) {
	schemas := compileSchemas(t)
	for name, cfgs := range invalidConfigs {
		for _, cfg := range cfgs {
			if err := schemas[name].Validate(instance(t, cfg)); err == nil {
				t.Errorf("%s accepts %s", name, cfg)
			}
			msg := `{"type":"operationUpdate","operationId":"x","operation":{"` + name + `":` + cfg + `}}`
			if err := schemas["operationUpdate"].Validate(instance(t, msg)); err == nil {
				t.Errorf("operationUpdate accepts %s", msg)
			}
		}
	}
}

func TestMessageSchemas(t *testing.T) {
	schemas := compileSchemas(t)
	// Every message of every valid canonical testdata document passes.
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	n := 0
	for _, f := range files {
		doc, _ := os.ReadFile(f)
		wf, errs := a2e.Parse(doc, a2e.Limits{})
		if len(errs) > 0 || wf.Legacy {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(doc))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\xef\xbb\xbf"))
			if line == "" {
				continue
			}
			var m struct{ Type string }
			_ = json.Unmarshal([]byte(line), &m)
			if err := schemas[m.Type].Validate(instance(t, line)); err != nil {
				t.Errorf("%s: %s rejects %s: %v", f, m.Type, line, err)
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d messages checked", n)
	}
	invalid := map[string][]string{
		"operationUpdate": {
			`{"type":"operationUpdate","operationId":"a","operation":{}}`,
			`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":1},"MergeData":{}}}`,
			`{"type":"operationUpdate","operationId":"a","operation":{"Shell":{"cmd":"rm"}}}`,
			`{"type":"operationUpdate","operationId":"a b","operation":{"Wait":{"duration":1}}}`,
			`{"type":"operationUpdate","operation":{"Wait":{"duration":1}}}`,
			`{"type":"beginExecution","operationId":"a","operation":{"Wait":{"duration":1}}}`,
			`{"type":"operationUpdate","operationId":"a","operation":{"Wait":{"duration":1}},"x":1}`,
		},
		"beginExecution": {
			`{"type":"beginExecution","executionId":"e","operationOrder":[]}`,
			`{"type":"beginExecution","executionId":"e"}`,
			`{"type":"beginExecution","operationOrder":["a"]}`,
			`{"type":"beginExecution","executionId":"e e","operationOrder":["a"]}`,
			`{"type":"beginExecution","executionId":"e","operationOrder":[1]}`,
			`{"type":"beginExecution","executionId":"e","operationOrder":["a"],"onError":"ignore"}`,
			`{"type":"beginExecution","executionId":"e","operationOrder":["a"],"root":"a"}`,
		},
	}
	for name, docs := range invalid {
		for _, d := range docs {
			if err := schemas[name].Validate(instance(t, d)); err == nil {
				t.Errorf("%s accepts %s", name, d)
			}
			// The decoder refuses them too, except an unknown operation name,
			// which is the validator's to report.
			if strings.Contains(d, "Shell") {
				continue
			}
			if _, err := a2e.NewDecoder(strings.NewReader(d), a2e.Limits{}).Next(); err == nil {
				t.Errorf("the decoder accepts %s", d)
			}
		}
	}
	valid := `{"type":"beginExecution","executionId":"e","operationOrder":["a"],"onError":"continue"}`
	if err := schemas["beginExecution"].Validate(instance(t, valid)); err != nil {
		t.Errorf("beginExecution rejects %s: %v", valid, err)
	}
}

// walkSchema calls fn on every subschema found under properties, items,
// additionalProperties, $defs and the combinators.
func walkSchema(path string, s map[string]any, fn func(path string, s map[string]any)) {
	fn(path, s)
	sub := func(p string, v any) {
		if m, ok := v.(map[string]any); ok {
			walkSchema(p, m, fn)
		}
	}
	for _, k := range []string{"properties", "$defs"} {
		if m, ok := s[k].(map[string]any); ok {
			for name, v := range m {
				sub(path+"/"+k+"/"+name, v)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "if", "then", "else"} {
		sub(path+"/"+k, s[k])
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := s[k].([]any); ok {
			for i, v := range l {
				sub(path+"/"+k+"/"+string(rune('0'+i)), v)
			}
		}
	}
}

func loadSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	b, _ := a2e.Schema(name)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func TestSchemaConventions(t *testing.T) {
	var apiCommon map[string]any
	for _, name := range a2e.SchemaNames() {
		s := loadSchema(t, name)
		if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" || s["$id"] != a2e.SchemaBaseURI+name+".json" {
			t.Errorf("%s: $schema %v $id %v", name, s["$schema"], s["$id"])
		}
		walkSchema(name, s, func(path string, sub map[string]any) {
			if props, ok := sub["properties"].(map[string]any); ok {
				for p, v := range props {
					if d, _ := v.(map[string]any)["description"].(string); d == "" && !strings.Contains(path, "/if") {
						t.Errorf("%s/properties/%s has no description", path, p)
					}
				}
				if sub["additionalProperties"] != false && !strings.Contains(path, "/if") && !strings.Contains(path, "/then") {
					t.Errorf("%s: additionalProperties is not false", path)
				}
			}
		})
		if !slices.Contains(a2e.OperationNames, name) {
			continue
		}
		// Properties and required fields agree with the Go types.
		fields, required, _ := a2e.ConfigFields(name)
		props := s["properties"].(map[string]any)
		var keys []string
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		sort.Strings(fields)
		if !slices.Equal(keys, fields) {
			t.Errorf("%s: schema properties %v, Go fields %v", name, keys, fields)
		}
		var req []string
		for _, r := range s["required"].([]any) {
			req = append(req, r.(string))
		}
		if !slices.Equal(req, required) {
			t.Errorf("%s: schema requires %v, Go requires %v", name, req, required)
		}
		// The common fields are the same everywhere (ApiCall's timeout adds its default).
		common := map[string]any{"timeout": props["timeout"], "retry": props["retry"], "cache": props["cache"]}
		if name == "ApiCall" {
			to := maps(common["timeout"])
			if to["default"] != float64(30000) {
				t.Errorf("ApiCall timeout default = %v", to["default"])
			}
			delete(to, "default")
			apiCommon = common
			continue
		}
		if name == "InvokeAgent" {
			// The agent invoker alone retries (RESOLUTIONS) and an agent's answer
			// is not cached: InvokeAgent has timeout only, with its own meaning.
			to := maps(common["timeout"])
			if common["retry"] != nil || common["cache"] != nil || to["minimum"] != float64(1) || to["maximum"] != float64(600000) || to["type"] != "integer" {
				t.Errorf("InvokeAgent: common fields %v", common)
			}
			continue
		}
		if apiCommon != nil && !reflect.DeepEqual(common, apiCommon) {
			t.Errorf("%s: common fields differ from ApiCall's", name)
		}
	}
}

func maps(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
