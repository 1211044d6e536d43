// The metric names a PromQL expression reads, well enough for alert rules and dashboard queries: strings,
// label matchers, ranges, grouping clauses, Grafana variables and numbers are removed first; what is left
// and not called as a function or used as an operator is a metric name.

const OPERATORS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ')
    .replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const calledAsFunction = /^\s*\(/.test(bare.slice(match.index + name.length));
    if (!calledAsFunction && !OPERATORS.has(name.toLowerCase())) names.add(name);
  }
  return [...names].sort();
}
