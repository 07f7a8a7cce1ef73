// Drives `sluice acp --stdio` with the @agentclientprotocol/sdk 2.4.0 client
// (TestACPJSClient): initialize, a new session, a prompt whose text is read
// from the session's updates. The sluice command is argv[2] (its arguments
// come in the environment); the outcome is printed as one JSON object.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const child = spawn(process.argv[2], [], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const app = acp.client({ name: "sluice-acp-js-test" });
app.onRequest(acp.methods.client.session.requestPermission, async () => ({ outcome: { outcome: "cancelled" } }));

const out = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  return await ctx.buildSession("/work/project").withSession(async (session) => {
    const turn = session.prompt("hello from js");
    const text = await session.readText();
    const response = await turn;
    return { init, sessionId: session.sessionId, text, stopReason: response.stopReason };
  });
});
process.stdout.write(JSON.stringify(out) + "\n");
child.stdin.end();
