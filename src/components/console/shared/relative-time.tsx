"use client";

import { useEffect, useState } from "react";

const exact = new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "long" });
const short = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium" });
const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
];

/** "3 minutes ago", "in 2 hours", "yesterday"; a date beyond a week. */
export function relativeTime(iso: string, now = Date.now()): string {
  const then = Date.parse(iso);
  let delta = (then - now) / 1000;
  if (Math.abs(delta) < 45) return "just now";
  for (const [unit, size] of STEPS) {
    if (Math.abs(delta) < size) return rtf.format(Math.round(delta), unit);
    delta /= size;
  }
  return short.format(new Date(then));
}

/** The exact moment with the viewer's time zone: "Wednesday 25 November 2026 at 15:04:05 UTC". */
export function exactTime(iso: string): string {
  return exact.format(new Date(iso));
}

/**
 * A time relative to now, with the exact time and zone on hover (title) and
 * for assistive technology (the <time> element's dateTime). Re-renders each
 * minute so "just now" does not go stale on an open page.
 */
export function RelativeTime({
  iso,
  empty = "Never",
  className,
}: {
  iso: string | null | undefined;
  empty?: string;
  className?: string;
}) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(t);
  }, []);
  if (!iso) return <span className={className}>{empty}</span>;
  return (
    <time dateTime={iso} title={exactTime(iso)} className={className}>
      {relativeTime(iso, now)}
    </time>
  );
}
