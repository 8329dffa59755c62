import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { parseJsonBody, readBodyLimited } from "./body";

const URL = "http://capstan.test/api/v1/things";

/** A request whose body arrives as the given chunks, with no content-length. */
function streamedRequest(chunks: Uint8Array[]) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const req = new Request(URL, { method: "POST", body, duplex: "half" } as RequestInit);
  return { req, state };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected the promise to reject");
}

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected a throw");
}

describe("readBodyLimited", () => {
  it("returns the body text up to and including the limit", async () => {
    const req = new Request(URL, { method: "POST", body: "0123456789" });
    expect(await readBodyLimited(req, 10)).toBe("0123456789");
  });

  it("returns an empty string for a bodiless request", async () => {
    expect(await readBodyLimited(new Request(URL), 10)).toBe("");
  });

  it("rejects a declared content-length over the limit with 413 before reading", async () => {
    // The actual body is tiny: only the declared length can trigger the 413.
    const req = new Request(URL, {
      method: "POST",
      body: "{}",
      headers: { "content-length": "11" },
    });
    expect(req.headers.get("content-length")).toBe("11");
    const err = await rejection(readBodyLimited(req, 10));
    expect(err.code).toBe("bad_request");
    expect(err.status).toBe(413);
    expect(err.reason).toBe("payload_too_large");
    expect(err.extensions).toEqual({ limit_bytes: 10 });
  });

  it("rejects a streamed body over the limit and stops reading", async () => {
    const chunk = new Uint8Array(4).fill(65);
    const { req, state } = streamedRequest(Array.from({ length: 100 }, () => chunk));
    const err = await rejection(readBodyLimited(req, 10));
    expect(err.status).toBe(413);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(10);
  });

  it("counts bytes, not characters", async () => {
    // 4 euro signs are 4 characters but 12 bytes.
    const { req } = streamedRequest([new TextEncoder().encode("€€€€")]);
    expect((await rejection(readBodyLimited(req, 10))).status).toBe(413);
  });

  it("decodes multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode('{"k":"€"}');
    const split = bytes.indexOf(0xe2) + 1; // in the middle of the euro sign
    const { req } = streamedRequest([bytes.slice(0, split), bytes.slice(split)]);
    expect(await readBodyLimited(req, 100)).toBe('{"k":"€"}');
  });
});

describe("parseJsonBody", () => {
  it("treats an empty or blank body as {} whatever the content type", () => {
    expect(parseJsonBody("", null)).toEqual({});
    expect(parseJsonBody("  \n", "application/json")).toEqual({});
    expect(parseJsonBody("", "text/plain")).toEqual({});
  });

  it.each([
    null,
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/merge-patch+json",
  ])("parses JSON sent as %s", (contentType) => {
    expect(parseJsonBody('{"a":[1,2]}', contentType)).toEqual({ a: [1, 2] });
  });

  it("rejects text that is not JSON with 400 malformed_json", () => {
    const err = thrown(() => parseJsonBody("{not json", "application/json"));
    expect(err.code).toBe("bad_request");
    expect(err.status).toBe(400);
    expect(err.reason).toBe("malformed_json");
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"])(
    "rejects a body sent as %s with 415",
    (contentType) => {
      const err = thrown(() => parseJsonBody('{"a":1}', contentType));
      expect(err.code).toBe("bad_request");
      expect(err.status).toBe(415);
      expect(err.reason).toBe("unsupported_media_type");
    },
  );
});
