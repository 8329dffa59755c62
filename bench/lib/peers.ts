/**
 * The bench's upstreams, in a process of their own (so the load generator and
 * the servers under test never share its event loop): a loopback
 * OpenAI-compatible provider answering chat completions at once, and the
 * repository's S3-compatible test server (test/support/s3-server.ts) with one
 * bucket and one access key, and a webhook receiver answering 204 at once.
 * Prints one JSON line with their addresses, then serves until its parent
 * closes stdin.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startS3Server } from "../../test/support/s3-server";

const apiKey = `sk-bench-${randomBytes(12).toString("hex")}`;
const answer = (model: unknown) =>
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  });
const provider = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }));
      return;
    }
    let model: unknown = null;
    try {
      model = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model?: unknown }).model ?? null;
    } catch {
      /* answered anyway */
    }
    const body = answer(model);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
provider.keepAliveTimeout = 65_000;
await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));

// A webhook receiver (the outbox scenario's subscription): answers every delivery at once.
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(204);
    res.end();
  });
});
receiver.keepAliveTimeout = 65_000;
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));

const s3 = await startS3Server();
const accessKeyId = `AKIA${randomBytes(8).toString("hex").toUpperCase()}`;
const secretAccessKey = randomBytes(20).toString("base64");
s3.addKey(accessKeyId, secretAccessKey);
s3.addBucket("bench");
// The server remembers every request for tests; a bench would grow it without bound.
setInterval(() => s3.requests.splice(0), 1_000).unref();

process.stdout.write(
  JSON.stringify({
    provider: { baseUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`, apiKey },
    s3: { endpoint: s3.endpoint, region: s3.region, bucket: "bench", accessKeyId, secretAccessKey },
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    pid: process.pid,
  }) + "\n",
);
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
