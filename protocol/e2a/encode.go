package e2a

// AppendEnvelope appends e as one compact JSON object with every field, in the
// reference's order, null where the reference writes None. Zero values are
// written as the reference's defaults (protocol_version "1.0",
// identity_origin "user", source_protocol "e2a", {} and []). It fails only on a
// value JSON cannot hold (NaN, a channel, ...) inside a free-form field.
func AppendEnvelope(b []byte, e *Envelope) ([]byte, error) {
	w := encoder{b: b}
	w.raw(`{"protocol_version":`)
	w.str(orDefault(e.ProtocolVersion, ProtocolVersion))
	w.raw(`,"provenance":`)
	w.provenance(&e.Provenance)
	w.raw(`,"request_id":`)
	w.optStr(e.RequestID)
	w.raw(`,"jsonrpc_id":`)
	w.id(e.JSONRPCID)
	w.raw(`,"correlation_id":`)
	w.optStr(e.CorrelationID)
	w.raw(`,"task_id":`)
	w.optStr(e.TaskID)
	w.raw(`,"context_id":`)
	w.optStr(e.ContextID)
	w.raw(`,"session_id":`)
	w.optStr(e.SessionID)
	w.raw(`,"message_id":`)
	w.optStr(e.MessageID)
	w.raw(`,"timestamp":`)
	w.time(e.Timestamp)
	w.raw(`,"identity_origin":`)
	w.str(orDefault(string(e.IdentityOrigin), string(OriginUser)))
	w.raw(`,"channel":`)
	w.optStr(e.Channel)
	w.raw(`,"user_id":`)
	w.optStr(e.UserID)
	w.raw(`,"agent_ref":`)
	w.nullableObj(e.AgentRef)
	w.raw(`,"chat_id":`)
	w.optStr(e.ChatID)
	w.raw(`,"source_agent_id":`)
	w.optStr(e.SourceAgentID)
	w.raw(`,"agent_id":`)
	w.optStr(e.AgentID)
	w.raw(`,"service_id":`)
	w.optStr(e.ServiceID)
	w.raw(`,"workspace_key":`)
	w.optStr(e.WorkspaceKey)
	w.raw(`,"method":`)
	w.optStr(e.Method)
	w.raw(`,"params":`)
	w.obj(e.Params)
	w.raw(`,"ext_method":`)
	w.optStr(e.ExtMethod)
	w.raw(`,"session_update_kind":`)
	w.optStr(e.SessionUpdateKind)
	w.raw(`,"is_stream":`)
	w.boolean(e.IsStream)
	w.raw(`,"expected_output_modes":`)
	w.strList(e.ExpectedOutputModes)
	w.raw(`,"auth":`)
	w.auth(e.Auth)
	w.raw(`,"channel_context":`)
	w.obj(e.ChannelContext)
	w.raw(`,"a2a_metadata":`)
	w.obj(e.A2AMetadata)
	w.raw(`,"acp_meta":`)
	w.obj(e.ACPMeta)
	w.raw("}")
	return w.b, w.err
}

// AppendResponse appends r as one compact JSON object with every field, in the
// reference's order. Zero values are written as the reference's defaults
// (protocol_version "1.0", status "in_progress", identity_origin "agent",
// source_protocol "e2a", {}). It does not check r; StreamWriter and Check do.
func AppendResponse(b []byte, r *Response) ([]byte, error) {
	w := encoder{b: b}
	w.raw(`{"protocol_version":`)
	w.str(orDefault(r.ProtocolVersion, ProtocolVersion))
	w.raw(`,"response_id":`)
	w.optStr(r.ResponseID)
	w.raw(`,"request_id":`)
	w.optStr(r.RequestID)
	w.raw(`,"sequence":`)
	w.value(r.Sequence)
	w.raw(`,"is_final":`)
	w.boolean(r.IsFinal)
	w.raw(`,"status":`)
	w.str(orDefault(string(r.Status), string(StatusInProgress)))
	w.raw(`,"response_kind":`)
	w.str(string(r.Kind))
	w.raw(`,"timestamp":`)
	w.time(r.Timestamp)
	w.raw(`,"provenance":`)
	w.provenance(&r.Provenance)
	w.raw(`,"body":`)
	w.obj(r.Body)
	w.raw(`,"jsonrpc_id":`)
	w.id(r.JSONRPCID)
	w.raw(`,"correlation_id":`)
	w.optStr(r.CorrelationID)
	w.raw(`,"task_id":`)
	w.optStr(r.TaskID)
	w.raw(`,"context_id":`)
	w.optStr(r.ContextID)
	w.raw(`,"session_id":`)
	w.optStr(r.SessionID)
	w.raw(`,"message_id":`)
	w.optStr(r.MessageID)
	w.raw(`,"is_stream":`)
	w.boolean(r.IsStream)
	w.raw(`,"identity_origin":`)
	w.str(orDefault(string(r.IdentityOrigin), string(OriginAgent)))
	w.raw(`,"channel":`)
	w.optStr(r.Channel)
	w.raw(`,"user_id":`)
	w.optStr(r.UserID)
	w.raw(`,"agent_ref":`)
	w.nullableObj(r.AgentRef)
	w.raw(`,"source_agent_id":`)
	w.optStr(r.SourceAgentID)
	w.raw(`,"method":`)
	w.optStr(r.Method)
	w.raw(`,"projections":`)
	w.obj(r.Projections)
	w.raw(`,"channel_context":`)
	w.obj(r.ChannelContext)
	w.raw(`,"metadata":`)
	w.obj(r.Metadata)
	w.raw(`,"a2a_metadata":`)
	w.obj(r.A2AMetadata)
	w.raw(`,"acp_meta":`)
	w.obj(r.ACPMeta)
	w.raw("}")
	return w.b, w.err
}

func (w *encoder) provenance(p *Provenance) {
	w.raw(`{"source_protocol":`)
	w.str(orDefault(p.SourceProtocol, SourceE2A))
	w.raw(`,"converter":`)
	w.optStr(p.Converter)
	w.raw(`,"converted_at":`)
	w.time(p.ConvertedAt)
	w.raw(`,"details":`)
	w.obj(p.Details)
	w.raw("}")
}

func (w *encoder) auth(a *Auth) {
	if a == nil {
		w.raw("null")
		return
	}
	w.raw(`{"method_id":`)
	w.optStr(a.MethodID)
	w.raw(`,"bearer_token":`)
	w.optStr(a.BearerToken)
	w.raw(`,"api_key_ref":`)
	w.optStr(a.APIKeyRef)
	w.raw(`,"credential_ref":`)
	w.optStr(a.CredentialRef)
	w.raw(`,"extra_headers":`)
	w.strMap(a.ExtraHeaders)
	w.raw(`,"_meta":`)
	w.obj(a.Meta)
	w.raw("}")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// MarshalJSON writes e as AppendEnvelope does.
func (e *Envelope) MarshalJSON() ([]byte, error) { return AppendEnvelope(nil, e) }

// UnmarshalJSON reads e as DecodeEnvelope does, with the default limits.
func (e *Envelope) UnmarshalJSON(data []byte) error {
	d, err := DecodeEnvelope(data, Limits{})
	if err != nil {
		return err
	}
	*e = *d
	return nil
}

// MarshalJSON writes r as AppendResponse does.
func (r *Response) MarshalJSON() ([]byte, error) { return AppendResponse(nil, r) }

// UnmarshalJSON reads r as DecodeResponse does, with the default limits.
func (r *Response) UnmarshalJSON(data []byte) error {
	d, err := DecodeResponse(data, Limits{})
	if err != nil {
		return err
	}
	*r = *d
	return nil
}

// MarshalJSON writes id as a string, a number or null.
func (id ID) MarshalJSON() ([]byte, error) {
	w := encoder{}
	w.id(id)
	return w.b, nil
}

// UnmarshalJSON reads a string, a number or null.
func (id *ID) UnmarshalJSON(data []byte) error {
	p := parser{data: data, maxDepth: 1}
	v, err := p.id()
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// MarshalJSON writes f with the reference's keys in its order.
func (f FileRef) MarshalJSON() ([]byte, error) {
	w := encoder{}
	w.raw(`{"uri":`)
	w.str(f.URI)
	w.raw(`,"name":`)
	w.optStr(f.Name)
	w.raw(`,"mime_type":`)
	w.optStr(f.MimeType)
	w.raw(`,"size":`)
	if f.Size == nil {
		w.raw("null")
	} else {
		w.value(*f.Size)
	}
	w.raw(`,"_meta":`)
	w.obj(f.Meta)
	w.raw("}")
	return w.b, w.err
}
