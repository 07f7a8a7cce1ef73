package cli

import (
	"errors"
	"fmt"
	"net/url"
)

// reachError is the error of a request to base that got no answer:
// "cannot reach BASE: why" (never the key), or "--url: ..." when base is
// not a URL. Other errors (an envelope that cannot be encoded) are
// returned as they are.
func reachError(base string, err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	if ue.Op == "parse" {
		return fmt.Errorf("--url: %v", err)
	}
	return fmt.Errorf("cannot reach %s: %v", base, ue.Err)
}
