// Feed snapshots and events cross process boundaries (Redis) as JSON text. Upstream records carry Date
// fields, which plain JSON would turn into strings, so dates are tagged on the way out and revived on the
// way in; everything else is plain JSON.

const DATE_TAG = '$date';

export function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    // `v` is already Date.prototype.toJSON's string: the holder still has the Date itself.
    const raw = key === '' ? value : this[key];
    return raw instanceof Date ? { [DATE_TAG]: Number.isNaN(raw.getTime()) ? null : raw.toISOString() } : v;
  });
}

export function decode<T>(text: string): T {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === DATE_TAG) {
        const iso = (v as Record<string, unknown>)[DATE_TAG];
        return typeof iso === 'string' ? new Date(iso) : new Date(Number.NaN);
      }
    }
    return v;
  }) as T;
}
