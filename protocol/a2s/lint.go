package a2s

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Lint returns every problem of a document: those found while normalizing it
// and those of the rules below, sorted by position. Errors make a document
// unusable; warnings do not.
func Lint(d *Document) []Diagnostic {
	l := &linter{d: d, z: &norm{file: d.File}}
	l.z.diags = append(l.z.diags, d.diags...)
	if d.Tree != nil && d.Tree.Kind == KindObject {
		l.metadata()
		l.checksum()
		l.imports()
		l.secrets()
		l.tasks()
		l.flow()
		l.order()
		l.outputs()
		l.refs()
		l.examples()
	}
	sortDiagnostics(l.z.diags)
	return l.z.diags
}

// LintBytes parses and lints one document; a document that cannot be read
// gives one diagnostic and a nil Document.
func LintBytes(data []byte, opt Options) (*Document, []Diagnostic) {
	d, err := Parse(data, opt)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, []Diagnostic{e.Diagnostic()}
		}
		return nil, []Diagnostic{{Rule: RuleSyntax, Severity: SeverityError, File: opt.File, Message: err.Error()}}
	}
	return d, Lint(d)
}

type linter struct {
	d *Document
	z *norm
}

func (l *linter) add(rule string, pos Pos, path, format string, args ...any) {
	l.z.add(rule, pos, path, format, args...)
}

var capabilityIDRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func (l *linter) metadata() {
	d := l.d
	if d.A2S.Set() {
		if v, err := ParseVersion(d.A2S.Value); err != nil {
			l.add(RuleVersion, d.A2S.Pos, "a2s", "a2s %v", err)
		} else if v.Major() != 1 {
			l.add(RuleProtocolVersion, d.A2S.Pos, "a2s", "a2s %s is not supported: this reader knows protocol 1.x", d.A2S.Value)
		}
	}
	if d.Version.Set() {
		if _, err := ParseVersion(d.Version.Value); err != nil {
			l.add(RuleVersion, d.Version.Pos, "version", "version %v", err)
		}
	}
	if d.ID.Set() && !capabilityIDRe.MatchString(d.ID.Value) {
		l.add(RuleIdentifier, d.ID.Pos, "id", "capability id %q: use letters, digits, _, - and ., starting with a letter or _", d.ID.Value)
	}
}

func (l *linter) checksum() {
	d := l.d
	if !d.Checksum.Set() {
		return
	}
	if _, err := ParseChecksum(d.Checksum.Value); err != nil {
		l.add(RuleChecksumFormat, d.Checksum.Pos, "checksum", "checksum %q is not sha256:<64 hex digits> (or bare hex); `sluice cap checksum FILE` computes it", d.Checksum.Value)
		return
	}
	if err := d.Verify(); err != nil {
		switch {
		case errors.Is(err, ErrChecksumMismatch):
			got, _ := d.ComputeChecksum()
			l.add(RuleChecksumMismatch, d.Checksum.Pos, "checksum", "checksum does not match the document, which hashes to %s", got)
		default:
			l.add(RuleChecksumMismatch, d.Checksum.Pos, "checksum", "checksum cannot be computed: %v", err)
		}
	}
}

// imports checks dependencies and capability tasks against the capability's
// type (atomic imports nothing; aggregate imports atomic only).
func (l *linter) imports() {
	d := l.d
	registries := map[string]bool{}
	for _, r := range d.Registries {
		registries[r.Name] = true
	}
	for _, dep := range d.Dependencies {
		path := "dependencies." + dep.Name
		if d.Type.Value == TypeAtomic {
			l.add(RuleAtomicImports, dep.Pos, path, "atomic capability %s imports %s: atomic capabilities import nothing", d.ID.Value, dep.Name)
		}
		if d.Type.Value == TypeAggregate && dep.Type.Value == TypeAggregate {
			l.add(RuleAggregateImports, dep.Type.Pos, path+".type", "aggregate capability %s imports aggregate %s: aggregates import atomic capabilities only", d.ID.Value, dep.Name)
		}
		if dep.Version.Set() {
			if _, err := ParseConstraint(dep.Version.Value); err != nil {
				l.add(RuleConstraint, dep.Version.Pos, path+".version", "%v", err)
			}
		}
		if dep.Checksum.Set() {
			if _, err := ParseChecksum(dep.Checksum.Value); err != nil {
				l.add(RuleChecksumFormat, dep.Checksum.Pos, path+".checksum", "dependency checksum %q is not sha256:<64 hex digits> (or bare hex)", dep.Checksum.Value)
			}
		}
		if dep.Registry.Set() {
			name := strings.TrimPrefix(dep.Registry.Value, "registries.")
			if !registries[name] {
				l.add(RuleUnknownRegistry, dep.Registry.Pos, path+".registry", "registry %q is not declared under registries", dep.Registry.Value)
			}
		}
	}
	for i, t := range d.Tasks {
		if t.Type.Value == TaskCapability && d.Type.Value == TypeAtomic {
			l.add(RuleAtomicImports, t.Type.Pos, indexPath("tasks", i)+".type", "atomic capability %s has capability task %s: atomic capabilities import nothing", d.ID.Value, t.ID.Value)
		}
	}
}

// secretWords are name parts that mark a secret.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "secret": true, "token": true, "apikey": true,
	"credential": true, "credentials": true, "privatekey": true, "passphrase": true,
}

// looksSecret splits a name into words (snake, kebab, camel case) and looks
// for secret words, also joined pairs (api_key, private_key, client_secret).
func looksSecret(name string) bool {
	var words []string
	var cur strings.Builder
	for i, r := range name {
		upper := r >= 'A' && r <= 'Z'
		if r == '_' || r == '-' || r == '.' || (upper && i > 0 && cur.Len() > 0) {
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			if !upper {
				continue
			}
		}
		cur.WriteRune(r | 0x20*boolRune(upper))
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	for i, w := range words {
		if secretWords[w] {
			return true
		}
		if i+1 < len(words) && secretWords[w+words[i+1]] {
			return true
		}
	}
	return false
}

func boolRune(b bool) rune {
	if b {
		return 1
	}
	return 0
}

// secrets warns about capability inputs that look like secrets: RESOLUTIONS
// refuses secret values as inputs; credentials come from the vault.
func (l *linter) secrets() {
	var walk func(ps []*Param, path string)
	walk = func(ps []*Param, path string) {
		for _, p := range ps {
			pp := joinPath(path, p.Name)
			if looksSecret(p.Name) || p.Format.Value == "password" {
				l.add(RuleSecretInput, p.Pos, pp, "input %s looks like a secret: declare it as a service credential (inputs.services.HOST.oauth2 or services.HOST) so runs take it from the vault", p.Name)
				continue
			}
			walk(p.Fields, pp)
		}
	}
	walk(l.d.Inputs, "inputs")
}

// examples checks that examples name declared tasks, inputs and outputs.
func (l *linter) examples() {
	d := l.d
	for i, ex := range d.Examples {
		path := indexPath("examples", i)
		if ex.Inputs != nil && ex.Inputs.Kind == KindObject {
			for _, m := range ex.Inputs.Keys {
				if FindParam(d.Inputs, m.Name) == nil && !(m.Name == "services" && len(d.Credentials) > 0) {
					l.add(RuleExample, m.Pos, joinPath(path+".inputs", m.Name), "example input %s is not a declared input", m.Name)
				}
			}
		}
		if ex.ExpectedOutputs != nil && ex.ExpectedOutputs.Kind == KindObject {
			for _, m := range ex.ExpectedOutputs.Keys {
				if FindParam(d.Outputs, m.Name) == nil {
					l.add(RuleExample, m.Pos, joinPath(path+".expected_outputs", m.Name), "expected output %s is not a declared output", m.Name)
				}
			}
		}
		for _, et := range ex.Tasks {
			tpath := joinPath(path+".tasks", et.ID)
			t := d.TaskByID(et.ID)
			if t == nil {
				l.add(RuleExample, et.Pos, tpath, "example stubs task %s, which does not exist", et.ID)
				continue
			}
			if et.Outputs == nil || len(t.Outputs) == 0 {
				continue
			}
			for _, m := range et.Outputs.Keys {
				if FindParam(t.Outputs, m.Name) == nil {
					l.add(RuleExample, m.Pos, joinPath(tpath+".outputs", m.Name), "example stubs output %s, which task %s does not declare", m.Name, et.ID)
				}
			}
		}
	}
}

// outputs checks lifecycles and that every capability output gets a value.
func (l *linter) outputs() {
	d := l.d
	for _, o := range d.Outputs {
		path := joinPath("outputs", o.Name)
		if !o.Lifecycle.Set() && o.Schema != nil && o.Schema.Member("lifecycle") == nil {
			l.add(RuleNoLifecycle, o.Pos, path, "output %s declares no lifecycle (persistent, session, capability, task)", o.Name)
		}
		if o.Mapping != nil || o.Schema != nil && o.Schema.Member("mapping") != nil {
			continue
		}
		produced := false
		for _, t := range d.Tasks {
			if FindParam(t.Outputs, o.Name) != nil || t.Type.Value == TaskCapability && len(t.Outputs) == 0 {
				produced = true
				break
			}
		}
		if !produced {
			l.add(RuleOutputNeverSet, o.Pos, path, "output %s has no mapping and no task declares an output %s: it is always null", o.Name, o.Name)
		}
	}
	for i, t := range d.Tasks {
		for _, o := range t.Outputs {
			if !o.Lifecycle.Set() && len(o.Fields) == 0 && (o.Schema == nil || o.Schema.Member("lifecycle") == nil) {
				l.add(RuleNoLifecycle, o.Pos, joinPath(indexPath("tasks", i)+".outputs", o.Name), "output %s of task %s declares no lifecycle (persistent, session, capability, task)", o.Name, t.ID.Value)
			}
		}
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
