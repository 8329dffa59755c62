/**
 * CSV (RFC 4180) for the console's exports: comma-separated, CRLF line ends,
 * a field is quoted when it holds a comma, a quote, CR or LF, and quotes are
 * doubled inside. A cell a spreadsheet would read as a formula (starting with
 * =, +, -, @, or a tab or CR that some spreadsheets skip before one) gets a
 * leading apostrophe (OWASP "CSV injection"), so an exported audit detail or
 * key cannot run in the reader's spreadsheet. Numbers stay numbers: a
 * negative number is data, not a formula.
 */
export type TCsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: TCsvCell): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "number" || typeof value === "boolean" ? String(value) : value;
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header row and the data rows, each line ended by CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly TCsvCell[])[]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(",") + "\r\n").join("");
}

/**
 * Hands `csv` to the browser as a download named `filename`. A UTF-8 BOM leads
 * the file so spreadsheets read non-ASCII text (names, keys) as UTF-8.
 */
export function downloadCsv(filename: string, csv: string): void {
  const blob = new Blob(["\uFEFF", csv], { type: "text/csv;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `capstan-invocations-ws_…-20261127T1840Z.csv`: what, where and when, safe as a file name. */
export function csvFilename(what: string, ws: string, now = new Date()): string {
  const stamp = now.toISOString().slice(0, 16).replace(/[-:]/g, "");
  return `capstan-${what}-${ws.replace(/[^0-9A-Za-z_]/g, "")}-${stamp}Z.csv`;
}
