package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/sluicehq/sluice/internal/fault"
)

// Attribute keys of sluice's own (the semantic conventions have none for
// them). Values are ids, names, counts and sizes: never a secret, never a
// payload.
const (
	AttrMethod      = attribute.Key("sluice.method")
	AttrTransport   = attribute.Key("sluice.transport")
	AttrRequestID   = attribute.Key("sluice.request_id")
	AttrAccountID   = attribute.Key("sluice.account.id")
	AttrExecutionID = attribute.Key("sluice.execution.id")
	AttrRunKind     = attribute.Key("sluice.run.kind")
	AttrOperationID = attribute.Key("sluice.operation.id")
	AttrOperation   = attribute.Key("sluice.operation.type")
	AttrAttempt     = attribute.Key("sluice.attempt")
	AttrTaskID      = attribute.Key("sluice.task.id")
	AttrDecision    = attribute.Key("sluice.decision")
	AttrSizeBytes   = attribute.Key("sluice.size_bytes")
	AttrStatus      = attribute.Key("sluice.status")
)

// MessagingSystem is messaging.system of sluice's queues (the table queues
// have no registered name; NATS and Kafka items cross the same interface).
const MessagingSystem = "sluice"

// Fail marks span as failed with err's public kind as error.type. Only the
// kind is recorded: an error's message may quote input.
func Fail(span trace.Span, err error) {
	if err == nil || !span.IsRecording() {
		return
	}
	kind := fault.From(err).Kind.String()
	span.SetStatus(codes.Error, kind)
	span.SetAttributes(semconv.ErrorTypeKey.String(kind))
}

// End ends span, failed when err is not nil.
func End(span trace.Span, err error) {
	Fail(span, err)
	span.End()
}

// StartAgent starts the GenAI span of a call to agent name:
// "invoke_agent <name>", a client span.
func StartAgent(ctx context.Context, name, taskID string) (context.Context, trace.Span) {
	ctx, span := StartNamed(ctx, "invoke_agent", name, trace.SpanKindClient)
	if span.IsRecording() {
		span.SetAttributes(semconv.GenAIOperationNameInvokeAgent, semconv.GenAIAgentNameKey.String(name),
			AttrTaskID.String(taskID))
	}
	return ctx, span
}

// StartTool starts the GenAI span of a session, MCP or A2A tool call:
// "execute_tool <name>".
func StartTool(ctx context.Context, name, callID string) (context.Context, trace.Span) {
	ctx, span := StartNamed(ctx, "execute_tool", name, trace.SpanKindInternal)
	if span.IsRecording() {
		span.SetAttributes(semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolNameKey.String(name))
		if callID != "" {
			span.SetAttributes(semconv.GenAIToolCallIDKey.String(callID))
		}
	}
	return ctx, span
}

// StartSend starts the producer span of a message sent on topic ("send
// <topic>", messaging conventions).
func StartSend(ctx context.Context, topic, id string, size int) (context.Context, trace.Span) {
	ctx, span := StartNamed(ctx, "send", topic, trace.SpanKindProducer)
	if span.IsRecording() {
		span.SetAttributes(semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingDestinationNameKey.String(topic),
			semconv.MessagingOperationTypeSend, semconv.MessagingOperationName("send"),
			semconv.MessagingMessageIDKey.String(id), semconv.MessagingMessageBodySizeKey.Int(size))
	}
	return ctx, span
}

// StartProcess starts the consumer span of a message taken from topic
// ("process <topic>") under the sender's context, and records the time the
// message waited in the queue as a "queue wait <topic>" span from enqueued
// to now (zero enqueued: no wait span).
func StartProcess(ctx context.Context, topic, id string, attempt int, enqueued time.Time) (context.Context, trace.Span) {
	if !Enabled() {
		return ctx, noSpan
	}
	if !enqueued.IsZero() {
		_, wait := StartWith(ctx, "queue wait "+topic, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithTimestamp(enqueued))
		if wait.IsRecording() {
			wait.SetAttributes(semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingDestinationNameKey.String(topic),
				semconv.MessagingOperationTypeReceive, semconv.MessagingOperationName("receive"), semconv.MessagingMessageIDKey.String(id))
		}
		wait.End()
	}
	ctx, span := Start(ctx, "process "+topic, trace.SpanKindConsumer)
	if span.IsRecording() {
		span.SetAttributes(semconv.MessagingSystemKey.String(MessagingSystem), semconv.MessagingDestinationNameKey.String(topic),
			semconv.MessagingOperationTypeProcess, semconv.MessagingOperationName("process"),
			semconv.MessagingMessageIDKey.String(id), AttrAttempt.Int(attempt))
	}
	return ctx, span
}
