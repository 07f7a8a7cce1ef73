package engine

import (
	"context"
	"log/slog"
)

// executionHandler adds the execution id to each record it handles. It stands
// in for logger.With("executionId", id), which a JSON or text handler answers
// by formatting the attribute at once: a cost paid by every execution, while
// most executions log nothing.
type executionHandler struct {
	inner slog.Handler
	id    string
}

func executionLogger(l *slog.Logger, id string) *slog.Logger {
	return slog.New(&executionHandler{inner: l.Handler(), id: id})
}

func (h *executionHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h *executionHandler) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(slog.String("executionId", h.id))
	return h.inner.Handle(ctx, r)
}

// WithAttrs and WithGroup fall back to the eager form: they are rare here.
func (h *executionHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.inner.WithAttrs(append([]slog.Attr{slog.String("executionId", h.id)}, attrs...))
}

func (h *executionHandler) WithGroup(name string) slog.Handler {
	return h.inner.WithAttrs([]slog.Attr{slog.String("executionId", h.id)}).WithGroup(name)
}
