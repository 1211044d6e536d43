import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// A script that starts a long-running process execs it: npm's shell is replaced by the process, so a signal
// to npm's child (kill $(jobs -p), a supervisor, kill -9 of the PID a doc tells you to find) reaches the
// server itself instead of a shell that dies and leaves it listening.
const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };

describe('npm scripts that start a server', () => {
  it.each(['start', 'start:prod', 'sandbox'])('%s execs it', (name) => {
    expect(scripts[name]).toMatch(/^exec /);
  });
});
