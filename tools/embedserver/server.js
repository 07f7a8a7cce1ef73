"use strict";
// A local OpenAI-compatible embeddings endpoint for sluice's hybrid
// discovery bench, fully offline:
//   POST /v1/embeddings {"model": ID, "input": ["..."] | "..."}
//   -> {"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model", "usage"}
// Usage: node server.js [--model use-lite-512|glove-100d-mean] [--port 8765]
// It listens on 127.0.0.1 only. Each request is logged to stderr with its
// size and time, so indexing cost can be read off the log.
const http = require("http");

const MODELS = {
  "use-lite-512": () => require("./models/use-lite"),
  "glove-100d-mean": () => require("./models/glove-100d"),
};
const MAX_BODY_BYTES = 8 << 20;
const MAX_INPUTS = 2048;

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

function send(res, status, body) {
  const data = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
  res.end(data);
}

function fail(res, status, message) {
  send(res, status, { error: { message, type: "invalid_request_error" } });
}

// parseRequest returns {input: [strings]} or {error: message}.
function parseRequest(raw, modelID) {
  let req;
  try {
    req = JSON.parse(raw);
  } catch (e) {
    return { error: `body is not JSON: ${e.message}` };
  }
  if (!req || typeof req !== "object") return { error: "body must be a JSON object" };
  if (req.model !== modelID) return { error: `model ${JSON.stringify(req.model)} is not served here; this server runs ${modelID}` };
  const input = typeof req.input === "string" ? [req.input] : req.input;
  if (!Array.isArray(input) || input.length === 0) return { error: "input must be a string or a non-empty array of strings" };
  if (input.length > MAX_INPUTS) return { error: `input has ${input.length} texts, at most ${MAX_INPUTS}` };
  const bad = input.findIndex((t) => typeof t !== "string");
  if (bad >= 0) return { error: `input[${bad}] is not a string` };
  return { input };
}

async function main() {
  const name = arg("--model", "use-lite-512");
  const port = Number(arg("--port", "8765"));
  if (!MODELS[name]) {
    console.error(`unknown --model ${name}; one of ${Object.keys(MODELS).join(", ")}`);
    process.exit(2);
  }
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error(`--port must be 1..65535, got ${arg("--port")}`);
    process.exit(2);
  }
  const started = Date.now();
  const model = await MODELS[name]().load();
  console.error(`model ${model.id} (${model.dimensions} dims) loaded in ${Date.now() - started} ms`);

  // One request at a time: the model is CPU-bound, and queueing keeps the
  // per-request times in the log honest.
  let queue = Promise.resolve();
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url === "/healthz") return send(res, 200, { model: model.id, dimensions: model.dimensions });
    if (req.url !== "/v1/embeddings") return fail(res, 404, `no route ${req.method} ${req.url}; POST /v1/embeddings`);
    if (req.method !== "POST") return fail(res, 405, "POST /v1/embeddings only");
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        fail(res, 413, `body over ${MAX_BODY_BYTES} bytes`);
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return;
      const parsed = parseRequest(Buffer.concat(chunks).toString("utf8"), model.id);
      if (parsed.error) return fail(res, 400, parsed.error);
      queue = queue.then(async () => {
        const t0 = process.hrtime.bigint();
        try {
          const vecs = await model.embed(parsed.input);
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          console.error(`embed n=${parsed.input.length} chars=${parsed.input.reduce((s, t) => s + t.length, 0)} ms=${ms.toFixed(1)}`);
          send(res, 200, {
            object: "list",
            model: model.id,
            data: vecs.map((v, index) => ({ object: "embedding", index, embedding: Array.from(v) })),
            usage: { prompt_tokens: 0, total_tokens: 0 },
          });
        } catch (e) {
          console.error(`embed failed: ${e.stack || e}`);
          fail(res, 500, `embedding failed: ${e.message}`);
        }
      });
    });
  });
  server.listen(port, "127.0.0.1", () => console.error(`listening on http://127.0.0.1:${port}/v1/embeddings`));
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
}

main().catch((e) => {
  console.error(e.stack || e);
  process.exit(1);
});
