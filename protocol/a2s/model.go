package a2s

// The normalized model of a capability document. Every element keeps where it
// was written (Pos), so the linter and the compiler can say file:line:col.
// Dialects are folded in: audit/permissions under security: or not,
// requires_service or service, lifecycle flow/execution read as task. Parts
// the model does not interpret (OpenAPI specifications, schemas, example
// values) are kept as tree nodes.

// Text is a scalar field with where its value was written.
type Text struct {
	Value string `json:"value"`
	Pos   Pos    `json:"pos,omitzero"`
}

// Set reports whether the field was given (a Pos is known).
func (t Text) Set() bool { return t.Pos.Known() }

// Capability types.
const (
	TypeAtomic    = "atomic"
	TypeAggregate = "aggregate"
)

// Task types.
const (
	TaskRequest       = "request"
	TaskAgentDecision = "agent_decision"
	TaskCondition     = "condition"
	TaskCapability    = "capability"
	TaskPrompt        = "prompt"
)

// Lifecycles (RESOLUTIONS: flow and execution are read as task).
const (
	LifecyclePersistent = "persistent"
	LifecycleSession    = "session"
	LifecycleCapability = "capability"
	LifecycleTask       = "task"
)

// Failure actions of error_handling.on_failure.
const (
	ActionContinue = "continue"
	ActionAbort    = "abort"
)

// Document is a normalized capability document.
type Document struct {
	File string `json:"file,omitempty"`
	// Tree is the document as written, for the checksum and $ref.
	Tree *Node `json:"-"`

	A2S          Text          `json:"a2s,omitzero"`
	ID           Text          `json:"id,omitzero"`
	Name         Text          `json:"name,omitzero"`
	Description  Text          `json:"description,omitzero"`
	Version      Text          `json:"version,omitzero"`
	Type         Text          `json:"type,omitzero"`
	Authors      []Author      `json:"authors,omitempty"`
	Checksum     Text          `json:"checksum,omitzero"`
	SourceURL    Text          `json:"source_url,omitzero"`
	Audit        *Audit        `json:"audit,omitempty"`
	Permissions  *Permissions  `json:"permissions,omitempty"`
	Registries   []Registry    `json:"registries,omitempty"`
	Dependencies []*Dependency `json:"dependencies,omitempty"`
	Services     []*Service    `json:"services,omitempty"`
	// Inputs are the capability's input parameters. Credentials are the
	// per-service credential slots written under inputs.services: they are
	// filled from the vault, never passed as inputs (RESOLUTIONS).
	Inputs      []*Param             `json:"inputs,omitempty"`
	Credentials []*ServiceCredential `json:"credentials,omitempty"`
	Outputs     []*Param             `json:"outputs,omitempty"`
	Tasks       []*Task              `json:"tasks,omitempty"`
	// Flow is nil when the document has none: tasks run in document order.
	Flow     *Step      `json:"flow,omitempty"`
	Requests []*Request `json:"requests,omitempty"`
	Schemas  []Schema   `json:"schemas,omitempty"`
	Examples []*Example `json:"examples,omitempty"`

	diags []Diagnostic
}

// Author of a document.
type Author struct {
	Pos   Pos  `json:"pos,omitzero"`
	Name  Text `json:"name,omitzero"`
	Email Text `json:"email,omitzero"`
	URL   Text `json:"url,omitzero"`
}

// Audit says whether and by whom the document was audited.
type Audit struct {
	Pos      Pos  `json:"pos,omitzero"`
	Status   Text `json:"status,omitzero"` // audited | unaudited | in-progress
	Provider Text `json:"provider,omitzero"`
	ID       Text `json:"id,omitzero"`
	URL      Text `json:"url,omitzero"`
}

// Permissions the capability needs.
type Permissions struct {
	Pos          Pos    `json:"pos,omitzero"`
	Level        Text   `json:"level,omitzero"` // basic | elevated | admin
	Description  Text   `json:"description,omitzero"`
	Capabilities []Text `json:"capabilities,omitempty"`
}

// Registry is a named registry URL.
type Registry struct {
	Name string `json:"name"`
	Pos  Pos    `json:"pos,omitzero"`
	URL  Text   `json:"url,omitzero"`
}

// Dependency is an imported capability (dependencies: or imports:).
type Dependency struct {
	Name      string `json:"name"`
	Pos       Pos    `json:"pos,omitzero"`
	Namespace Text   `json:"namespace,omitzero"`
	ID        Text   `json:"id,omitzero"`
	// Version is an npm-style constraint.
	Version  Text `json:"version,omitzero"`
	Checksum Text `json:"checksum,omitzero"`
	// Registry names a key of registries (registries.NAME or NAME).
	Registry Text `json:"registry,omitzero"`
	// Type is the imported capability's type when the document says it.
	Type Text `json:"type,omitzero"`
}

// Service is an external API the capability calls, keyed by host.
type Service struct {
	Host   string  `json:"host"`
	Pos    Pos     `json:"pos,omitzero"`
	Type   Text    `json:"type,omitzero"`
	OAuth2 *OAuth2 `json:"oauth2,omitempty"`
	Tasks  []Text  `json:"tasks,omitempty"`
}

// OAuth2 lists the credential fields a service reads and writes; TokenURL
// (sluice's addition) enables the client-credentials flow.
type OAuth2 struct {
	Pos      Pos    `json:"pos,omitzero"`
	Read     []Text `json:"read,omitempty"`
	Write    []Text `json:"write,omitempty"`
	TokenURL Text   `json:"token_url,omitzero"`
	Scopes   []Text `json:"scopes,omitempty"`
}

// ServiceCredential is inputs.services.HOST.SCHEME: credential fields a run
// takes from the vault.
type ServiceCredential struct {
	Host   string   `json:"host"`
	Pos    Pos      `json:"pos,omitzero"`
	Scheme string   `json:"scheme"`
	Fields []*Param `json:"fields,omitempty"`
}

// Param is an input or output, of the capability or of a task. A param with
// Fields is a group (oauth2: {client_id: ..., client_secret: ...}).
type Param struct {
	Name        string   `json:"name"`
	Pos         Pos      `json:"pos,omitzero"`
	Type        Text     `json:"type,omitzero"`
	Format      Text     `json:"format,omitzero"`
	Description Text     `json:"description,omitzero"`
	Lifecycle   Text     `json:"lifecycle,omitzero"` // normalized
	Ref         *Ref     `json:"ref,omitempty"`
	Mapping     *Mapping `json:"mapping,omitempty"`
	Fields      []*Param `json:"fields,omitempty"`
	// Schema is the param's node as written (type, enum, properties...).
	Schema *Node `json:"-"`
}

// Ref is a $ref: a JSON pointer into this document ("#/inputs/city").
type Ref struct {
	Pointer string `json:"pointer"`
	Pos     Pos    `json:"pos,omitzero"`
}

// Mapping kinds.
const (
	MappingPath     = "path"
	MappingTemplate = "template"
	MappingObject   = "object"
)

// Mapping is a runtime value: a path, a {..} template, or an object whose
// values are mappings.
type Mapping struct {
	Kind     string          `json:"kind"`
	Pos      Pos             `json:"pos,omitzero"`
	Raw      string          `json:"raw,omitempty"`
	Path     *Path           `json:"path,omitempty"`
	Template []TemplatePart  `json:"template,omitempty"`
	Fields   []*MappingField `json:"fields,omitempty"`
}

// MappingField is one member of an object mapping.
type MappingField struct {
	Name    string   `json:"name"`
	Pos     Pos      `json:"pos,omitzero"`
	Mapping *Mapping `json:"mapping"`
}

// TemplatePart is literal text or a {path} of a template.
type TemplatePart struct {
	Text string `json:"text,omitempty"`
	Path *Path  `json:"path,omitempty"`
}

// Path scopes.
const (
	ScopeInputs     = "inputs"
	ScopeOutputs    = "outputs"
	ScopeCapability = "capability"
	ScopeTask       = "task"
)

// Path is a reference to a runtime value: inputs.X..., outputs.X...,
// capability.X..., or TASK.outputs.X... .
type Path struct {
	Raw   string `json:"raw"`
	Pos   Pos    `json:"pos,omitzero"`
	Scope string `json:"scope"`
	// Task is the task id of a task path.
	Task string `json:"task,omitempty"`
	// Name is the first segment after the scope (the input or output name).
	Name string   `json:"name,omitempty"`
	Rest []string `json:"rest,omitempty"`
}

// Condition is `{path} op value` or a bare path.
type Condition struct {
	Raw   string   `json:"raw"`
	Pos   Pos      `json:"pos,omitzero"`
	Left  *Path    `json:"left"`
	Op    string   `json:"op,omitempty"`
	Right *Operand `json:"right,omitempty"`
}

// Operand is the right side of a comparison: a path or a literal.
type Operand struct {
	Path *Path `json:"path,omitempty"`
	// Value is a literal: float64, string, bool or nil.
	Value any    `json:"value,omitempty"`
	Raw   string `json:"raw"`
}

// Task is one step of work.
type Task struct {
	Pos         Pos        `json:"pos,omitzero"`
	ID          Text       `json:"id,omitzero"`
	Type        Text       `json:"type,omitzero"`
	Description Text       `json:"description,omitzero"`
	Service     Text       `json:"service,omitzero"` // requires_service or service
	Condition   *Condition `json:"condition,omitempty"`
	Inputs      []*Param   `json:"inputs,omitempty"`
	Outputs     []*Param   `json:"outputs,omitempty"`
	// Request is definition.request, a pointer to requests.NAME.
	Request Text `json:"request,omitzero"`
	// Logic is definition.logic of an agent_decision, one assignment a line.
	Logic []LogicLine `json:"logic,omitempty"`
	// Prompt is the prompt of a prompt task (or of an agent_decision).
	Prompt *Prompt `json:"prompt,omitempty"`
	// Capability is definition.capability of a capability task: a
	// dependency name.
	Capability Text       `json:"capability,omitzero"`
	OnFailure  *OnFailure `json:"on_failure,omitempty"`

	node *Node // as written
}

// LogicLine is `name = expression`.
type LogicLine struct {
	Pos  Pos    `json:"pos,omitzero"`
	Name string `json:"name"`
	Expr string `json:"expr"`
}

// Prompt is a template rendered from the task's inputs, with the format of
// the answer expected back.
type Prompt struct {
	Pos      Pos  `json:"pos,omitzero"`
	Template Text `json:"template,omitzero"`
	// Format is the expected answer: name -> type or schema.
	Format *Node `json:"-"`
}

// OnFailure is error_handling.on_failure.
type OnFailure struct {
	Pos     Pos  `json:"pos,omitzero"`
	Action  Text `json:"action,omitzero"` // continue | abort
	Message Text `json:"message,omitzero"`
}

// Step kinds.
const (
	StepTask      = "task"
	StepSequence  = "sequence"
	StepParallel  = "parallel"
	StepCondition = "condition"
)

// Step is a node of the flow: a task, a sequence or parallel group of steps,
// or a condition with then and else branches.
type Step struct {
	Kind  string     `json:"kind"`
	Pos   Pos        `json:"pos,omitzero"`
	Task  Text       `json:"task,omitzero"`
	Steps []*Step    `json:"steps,omitempty"`
	If    *Condition `json:"if,omitempty"`
	Then  []*Step    `json:"then,omitempty"`
	Else  []*Step    `json:"else,omitempty"`
}

// Request is one OpenAPI operation (requests.NAME).
type Request struct {
	Name   string `json:"name"`
	Pos    Pos    `json:"pos,omitzero"`
	Format Text   `json:"format,omitzero"`
	// OpenAPI is specification.openapi.
	OpenAPI Text `json:"openapi,omitzero"`
	// Server is the first servers[].url.
	Server Text `json:"server,omitzero"`
	// Method (lower case) and Path of the single operation.
	Method Text `json:"method,omitzero"`
	Path   Text `json:"path,omitzero"`
	// Operations counts the operations found (a request has exactly one).
	Operations int `json:"operations"`
	// Spec is the specification as written; Operation its single operation.
	Spec      *Node `json:"-"`
	Operation *Node `json:"-"`
}

// Schema is a named schema (schemas.NAME).
type Schema struct {
	Name string `json:"name"`
	Pos  Pos    `json:"pos,omitzero"`
	Node *Node  `json:"-"`
}

// Example is an executable example: inputs, stubbed task outputs, expected
// outputs.
type Example struct {
	Pos             Pos            `json:"pos,omitzero"`
	Description     Text           `json:"description,omitzero"`
	Inputs          *Node          `json:"-"`
	ExpectedOutputs *Node          `json:"-"`
	Tasks           []*ExampleTask `json:"tasks,omitempty"`
}

// ExampleTask stubs one task's outputs in an example.
type ExampleTask struct {
	ID      string `json:"id"`
	Pos     Pos    `json:"pos,omitzero"`
	Outputs *Node  `json:"-"`
}

// TaskByID returns the first task with id, or nil.
func (d *Document) TaskByID(id string) *Task {
	for _, t := range d.Tasks {
		if t.ID.Value == id {
			return t
		}
	}
	return nil
}

// RequestByName returns the request named name, or nil.
func (d *Document) RequestByName(name string) *Request {
	for _, r := range d.Requests {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// ServiceByHost returns the service of host, or nil.
func (d *Document) ServiceByHost(host string) *Service {
	for _, s := range d.Services {
		if s.Host == host {
			return s
		}
	}
	return nil
}

// DependencyByName returns the dependency named name, or nil.
func (d *Document) DependencyByName(name string) *Dependency {
	for _, dep := range d.Dependencies {
		if dep.Name == name {
			return dep
		}
	}
	return nil
}

// FindParam returns the param named name in ps, or nil.
func FindParam(ps []*Param, name string) *Param {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return nil
}
