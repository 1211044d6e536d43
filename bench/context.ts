import type { SandboxClient } from './clients.js';
import type { GatewayProcess, SandboxProcess } from './processes.js';
import type { Settings } from './settings.js';

/** What every scenario gets: the settings, both processes, and a sandbox client. */
export interface BenchContext {
  settings: Settings;
  sandbox: SandboxProcess;
  upstream: SandboxClient;
  gateway: GatewayProcess;
  /** Progress on stderr. */
  log(message: string): void;
}

/** Gateway log lines at warn and at error or above (pino JSON, level as a label or a number), from `from` on. */
export function logLevels(lines: string[], from: number): { warn: number; error: number } {
  const rank: Record<string, number> = { warn: 40, error: 50, fatal: 60 };
  let warn = 0;
  let error = 0;
  for (const line of lines.slice(from)) {
    const raw = line.match(/"level":"?(\w+)"?/)?.[1];
    const level = raw === undefined ? 0 : (rank[raw] ?? (Number(raw) || 0));
    if (level >= 50) error += 1;
    else if (level >= 40) warn += 1;
  }
  return { warn, error };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
