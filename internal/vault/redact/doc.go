// Package redact is the one redactor of secret values: every path that hands
// back what an upstream answered (ApiCall results and error quotes, capability
// outputs, agent outputs and errors, log lines) scrubs it with a Redactor made
// from the credential values it sent. It lives apart from package vault so
// that the operations, which package vault depends on, can use it too.
//
// A Redactor matches each value in the encodings an upstream is likely to echo
// it in (see forms.go). It cannot undo an arbitrary transform of a secret by a
// hostile upstream (double encoding, encryption, one character per line): that
// is what binding a credential to its hosts is for.
package redact
