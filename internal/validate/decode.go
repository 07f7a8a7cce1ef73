package validate

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/internal/op"
	"github.com/sluicehq/sluice/internal/policy"
	"github.com/sluicehq/sluice/protocol/a2e"
)

// decodeAll makes a node of every defined operation. On the way it reports the
// structure level (each factory's config errors) and the catalog level (unknown
// operation names).
func decodeAll(wf *a2e.Workflow, ids []string, o Options, c *collector) map[string]*node {
	nodes := make(map[string]*node, len(ids))
	var build *op.Environment
	if o.Env != nil {
		build = o.Env.WithDeps(grantAll(o.Env.Deps()))
	}
	for _, id := range ids {
		def := wf.Operations[id]
		n := &node{id: id, name: def.Operation.Name, desc: def.Operation.Name, line: def.Line}
		nodes[id] = n
		n.known = known(o.Env, n.name)
		if !n.known {
			c.err(unknownOperation(c, n, catalog(o.Env)))
			continue
		}
		var built op.Operation
		if o.Env == nil {
			for _, e := range strictDecode(def.Operation) {
				c.err(stamp(fromCodec(e), n))
			}
		} else if o.Env.Allowed(n.name) {
			// Build with the account's own Env first: on the usual path (a permitted
			// workflow) that is the operation the engine will run, kept in
			// Report.Built. Only when it fails is the config built again with every
			// grant, so the factory reports config problems and not the first refusal.
			own, err := o.Env.Build(n.name, def.Operation.Config)
			if err == nil {
				if c.built == nil {
					c.built = make(map[string]op.Operation, len(ids))
				}
				c.built[id], built = own, own
				decodeConfig(n, def.Operation.Config, built, c)
				continue
			}
			built, err = build.Build(n.name, def.Operation.Config)
			for _, fe := range errorsOf(err, func() *fault.Error {
				return fault.Typed(fault.Invalid, fault.ValidationError, "%s configuration is invalid", n.name)
			}) {
				c.err(stamp(fe, n))
			}
		}
		decodeConfig(n, def.Operation.Config, built, c)
	}
	return nodes
}

// grantAll returns a copy of d whose permissions grant every host, credential
// and agent. Factories check them against Deps.Permissions and stop at the
// first refusal; configs are built with every grant so that each
// factory reports every config problem, and the permission level checks the
// account's grants (Options.Permissions, Options.AllowHost) itself, once.
func grantAll(d *op.Deps) *op.Deps {
	var c op.Deps
	if d != nil {
		c = *d
	} else {
		c.Limits = op.DefaultLimits()
	}
	c.Permissions = policy.Permissions{
		Operations:  []string{"*"},
		Hosts:       []string{"*"},
		Credentials: []string{"*"},
		Agents:      []string{"*"},
	}
	return &c
}

// strictDecode checks a config without factories (no Env): the JSON types and
// required fields of the spec's typed configs, and a transform's config.
func strictDecode(operation a2e.Operation) []*a2e.Error {
	cfg, err := a2e.DecodeConfig(operation)
	if err == nil {
		if t, ok := cfg.(*a2e.TransformData); ok {
			_, err = a2e.DecodeTransformConfig(t)
		}
	}
	var out []*a2e.Error
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case nil:
		case a2e.ErrorList:
			out = append(out, x...)
		case *a2e.Error:
			out = append(out, x)
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		default:
			out = append(out, &a2e.Error{Message: operation.Name + " configuration is invalid", Cause: err})
		}
	}
	walk(err)
	return out
}

// definedIDs lists the defined operations in definition order, including any in
// Operations that Defined does not name (a workflow built by hand), sorted.
func definedIDs(wf *a2e.Workflow) []string {
	ids := make([]string, 0, len(wf.Operations))
	seen := make(map[string]bool, len(wf.Operations))
	for _, id := range wf.Defined {
		if wf.Operations[id] != nil && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var rest []string
	for id, def := range wf.Operations {
		if def != nil && !seen[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	return append(ids, rest...)
}

func known(env *op.Environment, name string) bool {
	if env == nil {
		return slices.Contains(a2e.OperationNames, name)
	}
	return env.Known(name)
}

func catalog(env *op.Environment) []string {
	if env == nil {
		return a2e.OperationNames
	}
	return env.Catalog()
}

func unknownOperation(c *collector, n *node, names []string) *fault.Error {
	return invalid(n, pathOperation+key(n.name), "unknown operation %q", n.name).
		WithSuggestions(suggestions(
			c.didYouMean(n.name, names),
			"Use one of: "+strings.Join(names, ", "),
		)...)
}

// stamp places a factory's error in the document: the operation's line and id,
// and a JSON path from the message root.
func stamp(fe *fault.Error, n *node) *fault.Error {
	e := *fe
	if e.Line == 0 {
		e.Line = n.line
	}
	if e.OperationID == "" {
		e.OperationID = n.id
	}
	base := pathOperation + key(n.name)
	switch {
	case e.Path == "" || e.Path == pathOperation:
		e.Path = base
	case !strings.HasPrefix(e.Path, pathOperation+".") && !strings.HasPrefix(e.Path, pathOperation+"["):
		if strings.HasPrefix(e.Path, "[") {
			e.Path = base + e.Path
		} else {
			e.Path = base + "." + e.Path
		}
	}
	return &e
}

// decodeConfig fills n from the config by operation name. Operations this package
// does not know in detail say what they read and write through op.Reader and
// op.Writer when they were built.
func decodeConfig(n *node, raw json.RawMessage, built op.Operation, c *collector) {
	base := pathOperation + key(n.name)
	if n.name == a2e.OpInvokeAgent {
		// Its reads and writes come from the built operation (default below).
		var cfg a2e.InvokeAgent
		lenient(raw, &cfg)
		n.agent = cfg.Agent
	}
	switch n.name {
	case a2e.OpApiCall:
		var cfg a2e.ApiCall
		lenient(raw, &cfg)
		decodeApiCall(n, &cfg, base)
	case a2e.OpFilterData:
		var cfg a2e.FilterData
		lenient(raw, &cfg)
		n.addPath(cfg.InputPath, base+".inputPath", needArray, true)
		for i, cond := range cfg.Conditions {
			checkCondition(n, c, base+".conditions"+index(i), cond.Operator, cond.Value, true)
		}
		n.setOut(cfg.OutputPath, tArray)
	case a2e.OpTransformData:
		var cfg a2e.TransformData
		lenient(raw, &cfg)
		decodeTransform(n, &cfg, base)
	case a2e.OpConditional:
		var cfg a2e.Conditional
		lenient(raw, &cfg)
		n.conditional = true
		n.addPath(cfg.Condition.Path, base+".condition.path", needAny, true)
		checkCondition(n, c, base+".condition", cfg.Condition.Operator, cfg.Condition.Value, false)
		n.bodies = append(n.bodies, body{field: "ifTrue", at: base + ".ifTrue", ids: cfg.IfTrue})
		if cfg.IfFalse != nil {
			n.bodies = append(n.bodies, body{field: "ifFalse", at: base + ".ifFalse", ids: cfg.IfFalse})
		}
		n.setOut(cfg.OutputPath, tObject)
	case a2e.OpLoop:
		var cfg a2e.Loop
		lenient(raw, &cfg)
		n.loop, n.concurrent, n.maxIter = true, cfg.Concurrency > 1, cfg.MaxIterations
		n.addPath(cfg.InputPath, base+".inputPath", needArray, true)
		n.bodies = append(n.bodies, body{field: "operations", at: base + ".operations", ids: cfg.Operations})
		n.setOut(cfg.OutputPath, tArray)
	case a2e.OpStoreData:
		var cfg a2e.StoreData
		lenient(raw, &cfg)
		n.addPath(cfg.InputPath, base+".inputPath", needAny, true)
		n.addTemplate(cfg.Key, base+".key")
	case a2e.OpLoadData:
		var cfg a2e.LoadData
		lenient(raw, &cfg)
		n.addTemplate(cfg.Key, base+".key")
		n.setOut(cfg.OutputPath, tUnknown)
	case a2e.OpMergeData:
		var cfg a2e.MergeData
		lenient(raw, &cfg)
		decodeMerge(n, &cfg, base)
	case a2e.OpWait:
		// Reads and writes nothing.
	default:
		if r, ok := built.(op.Reader); ok {
			for _, p := range r.Reads() {
				n.reads = append(n.reads, read{path: p, keys: keysOf(p), at: base})
			}
		}
		if w, ok := built.(op.Writer); ok {
			if p, ok := w.Writes(); ok && p.Root == a2e.RootWorkflow && len(p.Segments) > 0 {
				n.setOutPath(p, tUnknown)
			}
		}
	}
}

// lenient decodes what it can: a field of the wrong type is left zero and the
// factory reports it.
func lenient(raw json.RawMessage, cfg any) {
	_ = json.Unmarshal(raw, cfg)
}

func decodeApiCall(n *node, cfg *a2e.ApiCall, base string) {
	n.url = cfg.URL
	n.addTemplate(cfg.URL, base+".url")
	n.addTemplate(cfg.IdempotencyKey, base+".idempotencyKey")
	names := make([]string, 0, len(cfg.Headers))
	for h := range cfg.Headers {
		names = append(names, h)
	}
	sort.Strings(names)
	for _, h := range names {
		at := base + ".headers" + key(h)
		raw := bytes.TrimSpace(cfg.Headers[h])
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				n.addTemplate(s, at)
			}
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) == nil {
			if id, ok := credentialRef(v); ok {
				n.creds = append(n.creds, credUse{id: id, at: at + ".credentialRef.id"})
			}
		}
	}
	if len(cfg.Body) > 0 {
		var v any
		if json.Unmarshal(cfg.Body, &v) == nil {
			walkBody(n, v, base+".body")
		}
	}
	n.setOut(cfg.OutputPath, tUnknown)
}

// walkBody finds templates and credential references in a request body.
func walkBody(n *node, v any, at string) {
	switch x := v.(type) {
	case string:
		n.addTemplate(x, at)
	case []any:
		for i, e := range x {
			walkBody(n, e, at+index(i))
		}
	case map[string]any:
		if id, ok := credentialRef(x); ok {
			n.creds = append(n.creds, credUse{id: id, at: at + ".credentialRef.id"})
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkBody(n, x[k], at+key(k))
		}
	}
}

// credentialRef recognizes {"credentialRef": {"id": "X"}}.
func credentialRef(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	ref, ok := m["credentialRef"].(map[string]any)
	if !ok {
		return "", false
	}
	id, ok := ref["id"].(string)
	return id, ok && id != ""
}

func decodeTransform(n *node, cfg *a2e.TransformData, base string) {
	at := base + ".inputPath"
	n.desc = n.name + " " + cfg.Transform
	switch cfg.Transform {
	case a2e.TransformSort:
		n.addPath(cfg.InputPath, at, needArray, true)
		n.setOut(cfg.OutputPath, tArray)
	case a2e.TransformGroup:
		n.addPath(cfg.InputPath, at, needArray, true)
		n.setOut(cfg.OutputPath, tObject)
	case a2e.TransformAggregate:
		var ac a2e.AggregateConfig
		lenient(cfg.Config, &ac)
		n.addPath(cfg.InputPath, at, needArray, true)
		if ac.GroupBy != "" {
			n.setOut(cfg.OutputPath, tArray)
		} else {
			n.setOut(cfg.OutputPath, tObject)
		}
	case a2e.TransformSelect, a2e.TransformMap:
		// Both take an array (one result per element) or a single object.
		n.addPath(cfg.InputPath, at, needAny, true)
		n.setOut(cfg.OutputPath, tUnknown)
		n.outFollowsInput = true
	default:
		n.desc = n.name
		n.addPath(cfg.InputPath, at, needAny, true)
		n.setOut(cfg.OutputPath, tUnknown)
	}
}

func decodeMerge(n *node, cfg *a2e.MergeData, base string) {
	n.desc = n.name + " " + cfg.Strategy
	nd, out := needAny, tUnknown
	switch cfg.Strategy {
	case a2e.MergeConcat, a2e.MergeUnion, a2e.MergeIntersect:
		out = tArray
	case a2e.MergeDeep:
		nd, out = needNotArray, tObject
	default:
		n.desc = n.name
	}
	for i, s := range cfg.Sources {
		n.addPath(s, base+".sources"+index(i), nd, false)
	}
	n.setOut(cfg.OutputPath, out)
}
