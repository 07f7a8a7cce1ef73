package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sluicehq/sluice/internal/fault"
	"github.com/sluicehq/sluice/protocol/e2a"
)

// callError is a gateway method's error frame as a page shows it: its code,
// its safe message and the HTTP status the API would have answered.
type callError struct {
	Code    string
	Message string
	Status  int
}

func (e *callError) Error() string { return e.Code + ": " + e.Message }

// call makes one gateway method call as the sign-in's key and decodes its
// result into out (nil: ignore it). The gateway admits, limits and audits
// it as any call of the API.
func (ss *session) call(ctx context.Context, method string, params map[string]any, out any) *callError {
	env := envelope(method, params)
	var final *e2a.Response
	sink := e2a.SinkFunc(func(f *e2a.Response) error {
		if f.IsFinal {
			final = f
		}
		return nil
	})
	if err := ss.conn.Call(ctx, env, sink); err != nil {
		return errorOf(err)
	}
	return decodeFinal(final, out)
}

// envelope is a call of method with params as they would arrive in JSON
// (numbers as float64, lists as []any): the gateway binds them as it binds
// a request's.
func envelope(method string, params map[string]any) *e2a.Envelope {
	env := e2a.NewEnvelope()
	env.Method = method
	env.Params = map[string]any{}
	if b, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(b, &env.Params)
	}
	return env
}

// decodeFinal reads a call's final frame into out.
func decodeFinal(final *e2a.Response, out any) *callError {
	if final == nil {
		return &callError{Code: "internal", Message: "the call ended without an answer", Status: http.StatusInternalServerError}
	}
	if final.Kind == e2a.KindError {
		code, _ := final.Body["code"].(string)
		msg, _ := final.Body["message"].(string)
		return &callError{Code: code, Message: msg, Status: fault.RowOf(code).HTTPStatus}
	}
	if out == nil {
		return nil
	}
	// The result is the method's Go value: its JSON is what the API sends,
	// and what the pages read.
	b, err := json.Marshal(final.Body["result"])
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		return &callError{Code: "internal", Message: fmt.Sprintf("the answer could not be read: %v", err), Status: http.StatusInternalServerError}
	}
	return nil
}

func errorOf(err error) *callError {
	fe := fault.From(err)
	return &callError{Code: fe.Kind.String(), Message: fe.Message, Status: fe.Kind.Row().HTTPStatus}
}
