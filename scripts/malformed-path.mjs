// Next.js answers a bare 500 (text/plain) to a request path whose
// percent-encoding is not valid UTF-8 (%ZZ, %E0%A4%A, an escaped lone
// surrogate): its router decodes the path before any route of ours runs. The
// production server (./server.mjs) asks this first and answers such a request
// itself with the 400 problem document every other bad input gets.
import { randomInt } from "node:crypto";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** An id in the app's correlation id format (evt_ + 26 Crockford base32, first char 0-7). */
function correlationId() {
  let id = "evt_" + CROCKFORD[randomInt(8)];
  for (let i = 0; i < 25; i++) id += CROCKFORD[randomInt(32)];
  return id;
}

/** True when `url`'s path decodes (segment by segment, as a router would). */
export function pathDecodes(url) {
  const path = (url ?? "/").split(/[?#]/, 1)[0];
  try {
    for (const segment of path.split("/")) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** Answers a request whose path does not decode with a 400 problem and returns true; otherwise false. */
export function answerMalformedPath(req, res) {
  if (pathDecodes(req.url)) return false;
  const id = correlationId();
  const instance = (req.url ?? "/").split(/[?#]/, 1)[0];
  const body = JSON.stringify({
    type: "https://capstan.dev/problems/malformed_path",
    title: "Bad request",
    status: 400,
    detail: "The request path is not valid percent-encoded UTF-8",
    instance,
    code: "bad_request",
    correlation_id: id,
    reason: "malformed_path",
  });
  res.writeHead(400, {
    "content-type": "application/problem+json",
    "x-correlation-id": id,
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
  return true;
}
