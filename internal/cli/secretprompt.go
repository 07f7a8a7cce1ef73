package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// terminalFd is the descriptor of r when r is a terminal; tests replace it.
var terminalFd = func(r io.Reader) (int, bool) {
	f, ok := r.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

// readPassword reads a line from the terminal fd without echo; tests
// replace it.
var readPassword = term.ReadPassword

// promptSecret asks for a secret on a terminal without echoing it: the
// prompt on stderr, the answer read with echo off (a secret typed at a
// prompt must not stay on the screen or in a scrollback). ok is false when
// stdin is not a terminal (the caller reads it as a stream).
func (s Stdio) promptSecret(prompt string, limit int) (value string, ok bool, err error) {
	fd, isTerm := terminalFd(s.In)
	if !isTerm {
		return "", false, nil
	}
	fmt.Fprint(s.Err, prompt)
	b, err := readPassword(fd)
	fmt.Fprintln(s.Err) // the newline the user typed was not echoed
	if err != nil {
		return "", true, fail(ExitInvalid, "reading the value from the terminal: %v", err)
	}
	if len(b) > limit {
		return "", true, fail(ExitInvalid, "the value is longer than %d bytes", limit)
	}
	return strings.TrimRight(string(b), "\r\n"), true, nil
}
