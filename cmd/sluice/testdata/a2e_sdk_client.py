"""Drive the A2E Python SDK's own client (github.com/a2eprotocol/python-sdk)
against `sluice session --stdio`, unmodified, and print what it got as one
JSON line for a2esdk_test.go to assert on.

Environment: PYTHONPATH holds the SDK checkout; SLUICE_SDK_COMMAND is the
command that starts sluice (a JSON list); SLUICE_SDK_KEY the account's key.
The SDK's package imports its server side (fastapi, mcp), which the client
does not use: a finder below stands in for those modules, so only the client
and the pydantic models load.
"""
import importlib.abc
import importlib.machinery
import json
import logging
import os
import sys
import types

STUBBED = {"fastapi", "mcp"}


class _Anything:
    """What a stubbed module gives for any name: never called by the client."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = lambda name: _Anything
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())

from a2e.core.client import A2EClient, A2EClientError  # noqa: E402
from a2e.caps.tools.client import ToolAPI  # noqa: E402
from a2e.core.transports.subprocess import SubprocessTransport  # noqa: E402

FILTER_ARGS = {
    "inputPath": "/input/xs",
    "conditions": [{"field": "v", "operator": ">", "value": 1}],
    "input": {"xs": [{"v": 0}, {"v": 2}, {"v": 3}]},
}
WORKFLOW = (
    '{"type":"operationUpdate","operationId":"w","operation":{"Wait":{"duration":1}}}\n'
    '{"type":"beginExecution","executionId":"sdk-driver","operationOrder":["w"]}\n'
)


def connect(log, caps=None):
    transport = SubprocessTransport(command=json.loads(os.environ["SLUICE_SDK_COMMAND"]), logger=log)
    client = A2EClient(transport=transport, logger=log, agent_id="sdk-driver",
                       auth_token=os.environ["SLUICE_SDK_KEY"], agent_caps=caps)
    tools = ToolAPI(client)
    client.connect()
    return client, tools


def caps_of(client):
    return [{"capability": c.capability.value, "enabled": c.enabled} for c in client.capabilities()]


def main():
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    log = logging.getLogger("a2e-sdk")
    report = {}

    # The SDK's default handshake: agent_caps ["streaming", "artifacts"].
    client, tools = connect(log)
    try:
        report["default_caps"] = caps_of(client)
        report["session_id_set"] = bool(client._session_id)
        report["ping_ms_positive"] = client.ping() > 0

        ops = tools.list(kind="op")
        report["op_tools"] = [t.name for t in ops]
        report["op_params"] = {t.name: sorted(p.name for p in t.input_parameters) for t in ops}
        report["workflow_tools"] = [t.name for t in tools.list(kind="workflow")]
        report["query_tools"] = [t.name for t in tools.list(query="filter")]

        res = tools.call("op.FilterData", FILTER_ARGS, streaming=False)
        report["call"] = {"success": res.success, "tool_name": res.tool_name, "data": res.data,
                          "duration_ms_is_int": isinstance(res.duration_ms, int)}

        events = []
        res = tools.call("workflow.execute", {"workflow": WORKFLOW},
                         on_event=lambda e: events.append({"type": e.type.value, "kind": e.kind, "seq": e.seq}))
        report["stream"] = {"success": res.success, "events": events}

        try:
            tools.call("op.ApiCall", {})
            report["denied"] = None
        except A2EClientError as e:
            report["denied"] = {"code": e.code, "req_id_set": bool(e.req_id)}
    finally:
        client.disconnect()

    # Asking for what sluice serves, and more.
    client, _ = connect(log, caps=["tools", "mcp", "env", "streaming"])
    try:
        report["asked_caps"] = caps_of(client)
    finally:
        client.disconnect()

    print(json.dumps(report, sort_keys=True))


if __name__ == "__main__":
    main()
