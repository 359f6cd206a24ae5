// SPDX-License-Identifier: ISC
// web/src/time.js — how the page writes times: a date in the reader's
// local time, the year only when it is not this one (UTC in the tooltip) and a coarse countdown ("in 2 d 3 h").
export const nowSec = () => Math.floor(Date.now() / 1000);

export function fmtTime(sec, utc) {
  const d = new Date(sec * 1000);
  if (utc) return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const thisYear = d.getFullYear() === new Date().getFullYear();
  return d.toLocaleString(undefined, { year: thisYear ? undefined : 'numeric', month: 'short', day: 'numeric',
    hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
}

// The two largest units: "in 3 d 4 h", "in 12 min 5 s", "5 h 2 min ago".
export function fmtCountdown(at, now) {
  let s = Math.abs(at - now);
  if (s === 0) return 'now';
  const parts = [];
  for (const [n, u] of [[86400, 'd'], [3600, 'h'], [60, 'min'], [1, 's']]) {
    if (s >= n || parts.length) { parts.push(`${Math.floor(s / n)} ${u}`); s %= n; }
    if (parts.length === 2) break;
  }
  return at > now ? `in ${parts.join(' ')}` : `${parts.join(' ')} ago`;
}
