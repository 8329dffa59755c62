/**
 * A unified diff of one file whose change is one contiguous region (what
 * the deterministic fix rules produce): the common leading and trailing
 * lines are context (up to 3 each side), the rest is one hunk.
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ctx = 3;
  const from = Math.max(0, head - ctx);
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  const aTo = Math.min(a.length, aEnd + ctx);
  const bTo = Math.min(b.length, bEnd + ctx);
  const lines = [
    ...a.slice(from, head).map((l) => ` ${l}`),
    ...a.slice(head, aEnd).map((l) => `-${l}`),
    ...b.slice(head, bEnd).map((l) => `+${l}`),
    ...a.slice(aEnd, aTo).map((l) => ` ${l}`),
  ];
  const range = (start: number, count: number) => `${count === 0 ? start : start + 1},${count}`;
  return (
    [`--- a/${path}`, `+++ b/${path}`, `@@ -${range(from, aTo - from)} +${range(from, bTo - from)} @@`, ...lines].join(
      "\n",
    ) + "\n"
  );
}
