import { describe, expect, it } from "vitest";
import { csvCell, csvFilename, toCsv } from "./csv";

describe("csvCell (RFC 4180)", () => {
  it("leaves plain text, numbers and booleans as they are; null and undefined are empty", () => {
    expect(csvCell("data.kv")).toBe("data.kv");
    expect(csvCell(64)).toBe("64");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(0.25)).toBe("0.25");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell("")).toBe("");
  });

  it("quotes a field holding a comma, a quote, CR or LF, and doubles quotes inside", () => {
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("line 1\nline 2")).toBe('"line 1\nline 2"');
    expect(csvCell("line 1\r\nline 2")).toBe('"line 1\r\nline 2"');
    expect(csvCell('"')).toBe('""""');
  });

  it("neutralises spreadsheet formulas: =, +, -, @, tab and CR at the start get a leading apostrophe", () => {
    expect(csvCell('=HYPERLINK("http://evil","x")')).toBe('"\'=HYPERLINK(""http://evil"",""x"")"');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell("\r=1")).toBe('"\'\r=1"');
    expect(csvCell("=a,b")).toBe('"\'=a,b"');
    // Only the start counts; numbers are data.
    expect(csvCell("a=b")).toBe("a=b");
    expect(csvCell("x-1")).toBe("x-1");
    expect(csvCell(-1)).toBe("-1");
  });

  it("keeps unicode as it is (the download adds a UTF-8 BOM)", () => {
    expect(csvCell("Zoë Ångström 東京 🚀")).toBe("Zoë Ångström 東京 🚀");
    expect(csvCell("naïve, “quoted”")).toBe('"naïve, “quoted”"');
  });
});

describe("toCsv", () => {
  it("writes the header and rows with CRLF after every line", () => {
    const csv = toCsv(
      ["time", "outcome", "reason"],
      [
        ["2026-11-27T18:00:00.000Z", "denied", "outside_contract"],
        ["2026-11-27T18:01:00.000Z", "completed", null],
      ],
    );
    expect(csv).toBe(
      "time,outcome,reason\r\n2026-11-27T18:00:00.000Z,denied,outside_contract\r\n2026-11-27T18:01:00.000Z,completed,\r\n",
    );
  });

  it("a header row alone when nothing is shown", () => {
    expect(toCsv(["a", "b"], [])).toBe("a,b\r\n");
  });

  it("round-trips through a strict RFC 4180 reader", () => {
    const rows = [["a,b", 'q"q', "multi\nline", "=cmd", "ü"]];
    const parsed = parseCsv(toCsv(["1", "2", "3", "4", "5"], rows));
    expect(parsed).toEqual([
      ["1", "2", "3", "4", "5"],
      ["a,b", 'q"q', "multi\nline", "'=cmd", "ü"],
    ]);
  });
});

describe("csvFilename", () => {
  it("names what, the workspace and the minute, with nothing unsafe in it", () => {
    expect(csvFilename("audit", "ws_abc/../x", new Date("2026-11-27T18:40:12Z"))).toBe(
      "capstan-audit-ws_abcx-20261127T1840Z.csv",
    );
  });
});

/** A minimal RFC 4180 reader (quoted fields, doubled quotes, CRLF records), to check what a reader sees. */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = "";
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') {
        quoted = false;
        i += 1;
        continue;
      }
      field += c;
      i += 1;
      continue;
    }
    if (c === '"') {
      quoted = true;
      i += 1;
      continue;
    }
    if (c === ",") {
      row.push(field);
      field = "";
      i += 1;
      continue;
    }
    if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      out.push(row);
      row = [];
      field = "";
      i += 2;
      continue;
    }
    field += c;
    i += 1;
  }
  return out;
}
