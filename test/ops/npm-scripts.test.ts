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

describe('the container', () => {
  // The image runs node itself (PID 1, no npm): its command must be start:prod's, flags and all, or the image
  // would run without what they give (the young generation's size, the heap trim's --expose-gc).
  it("starts the gateway with start:prod's command", () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd, 'a CMD in exec form').toBeDefined();
    expect(JSON.parse(cmd!)).toEqual(scripts['start:prod']!.replace(/^exec /, '').split(/\s+/));
  });
});
