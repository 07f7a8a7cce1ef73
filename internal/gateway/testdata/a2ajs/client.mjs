// The @a2a-js/sdk client against sluice's A2A server (TestA2AJSClient):
// every call it makes, in order, printed as one JSON object on stdout.
// Arguments: the server's base URL, an account key, the agent that
// answers, the agent that never answers.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';

const [base, key, echo, stall] = process.argv.slice(2);
const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set('Authorization', `Bearer ${key}`);
  return fetch(url, { ...init, headers });
};
const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
});
const factory = new ClientFactory(options);
const message = (id, data, taskId = '') => ({
  messageId: id, contextId: '', taskId, role: Role.ROLE_USER, metadata: undefined, extensions: [], referenceTaskIds: [],
  parts: [{ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: '' }],
});
const request = (msg, returnImmediately = false) => ({
  tenant: '', message: msg, metadata: undefined,
  configuration: { acceptedOutputModes: [], returnImmediately, historyLength: undefined, taskPushNotificationConfig: undefined },
});
const state = (s) => TaskState[s] ?? String(s);
const taskOf = (res) => (res && res.payload && res.payload.$case === 'task') ? res.payload.value : res;
const dataOf = (task) => task.artifacts?.[0]?.parts?.[0]?.content?.value;
const out = {};
const run = Date.now().toString(36);

const client = await factory.createFromUrl(`${base}/a2a/${echo}/`);
const sent = taskOf(await client.sendMessage(request(message(`js-send-${run}`, { text: 'hello' }))));
out.send = { state: state(sent.status.state), output: dataOf(sent), id: sent.id };
const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
out.get = { state: state(got.status.state), id: got.id };

out.stream = [];
for await (const ev of client.sendMessageStream(request(message(`js-stream-${run}`, { text: 'streamed' })))) {
  const p = ev.payload;
  if (!p) continue;
  if (p.$case === 'task') out.stream.push(`task:${state(p.value.status.state)}`);
  if (p.$case === 'statusUpdate') out.stream.push(`status:${state(p.value.status.state)}`);
  if (p.$case === 'artifactUpdate') out.stream.push(`artifact:${JSON.stringify(p.value.artifact.parts[0].content.value)}`);
  if (p.$case === 'message') out.stream.push('message');
}

const slow = await factory.createFromUrl(`${base}/a2a/${stall}/`);
const pending = taskOf(await slow.sendMessage(request(message(`js-stall-${run}`, {}), true)));
const cancelled = await slow.cancelTask({ tenant: '', id: pending.id, metadata: undefined });
out.cancel = { state: state(cancelled.status.state) };

try {
  await client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined });
  out.missing = 'found';
} catch (e) {
  out.missing = String(e && e.message || e);
}
console.log(JSON.stringify(out));
