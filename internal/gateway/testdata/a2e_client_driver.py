"""Drives the A2E reference client against a running sluice.

The client is github.com/MauricioPerera/a2e's client/a2e_client.py (Apache-2.0),
loaded unmodified from the file named by the config; it is not part of this
repository. TestA2EReferenceClient runs this script with a JSON config on
stdin:

    {"client": PATH, "base_url": URL, "api_key": KEY, "upstream": URL}

and reads one JSON object on stdout: for each call, by name,
{"ok": true, "result": ...} or {"ok": false, "status": N, "body": TEXT}.
The Go test asserts; this script only calls and reports.
"""

import importlib.util
import json
import sys

import requests

config = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("a2e_client", config["client"])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

client = module.A2EClient(config["base_url"], api_key=config["api_key"])
by_token = module.A2EClient(config["base_url"], token=config["api_key"])
results = {}


def record(name, call):
    try:
        results[name] = {"ok": True, "result": call()}
    except requests.HTTPError as e:
        results[name] = {"ok": False, "status": e.response.status_code, "body": e.response.text}


def workflow(workflow_id):
    builder = module.WorkflowBuilder(workflow_id=workflow_id)
    builder.add_api_call("fetch", "GET", config["upstream"] + "/users", output_path="/workflow/users")
    builder.add_filter("active", "/workflow/users",
                       [{"field": "status", "operator": "==", "value": "active"}],
                       output_path="/workflow/active")
    return builder.build()


wf = workflow(config.get("workflow_id", "reference-client"))
record("get_capabilities", client.get_capabilities)
record("get_capabilities_by_token", by_token.get_capabilities)
record("validate_workflow", lambda: client.validate_workflow(wf))
record("execute_workflow", lambda: client.execute_workflow(wf))
record("execute_workflow_validate_false", lambda: client.execute_workflow(wf, validate=False))
invalid = '{"operationUpdate":{"workflowId":"bad","operations":[{"id":"x","operation":{"NoSuchOp":{}}}]}}'
record("execute_invalid_validate_false", lambda: client.execute_workflow(invalid, validate=False))
execution_id = (results["execute_workflow"].get("result") or {}).get("execution_id", "none")
record("get_execution", lambda: client.get_execution(execution_id))
record("list_executions", client.list_executions)
record("list_executions_status", lambda: client.list_executions(limit=10, status="success"))
record("list_knowledge_bases", client.list_knowledge_bases)
record("search_knowledge", lambda: client.search_knowledge("manager approval for refunds"))
bases = results["list_knowledge_bases"].get("result") or [{}]
record("search_knowledge_listed", lambda: client.search_knowledge(
    "manager approval", kb_id=bases[0].get("id"), knowledge_type=bases[0].get("type"), top_k=2))
record("search_sql_queries", lambda: client.search_sql_queries("active users", database="main"))
record("list_sql_queries", lambda: client.list_sql_queries(database="main", category="users"))
record("get_sql_query", lambda: client.get_sql_query("active-users"))

json.dump(results, sys.stdout)
